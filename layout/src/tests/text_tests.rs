use crate::encoding::*;
use crate::error::LayoutError;
use crate::text::*;

fn roundtrip(e: &Encoding) {
    let s = e.to_string();
    let p: Encoding = s.parse().unwrap_or_else(|err| panic!("{s}: {err}"));
    assert_eq!(&p, e, "{s}");
}

#[test]
fn print_matches_triton_syntax() {
    let b = Encoding::from(BlockedEncoding::new(vec![4], vec![32], vec![4], vec![0]));
    assert_eq!(
        b.to_string(),
        "#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>"
    );
    let mma = Encoding::from(NvidiaMmaEncoding::v3(vec![8, 1], 256, 16));
    assert_eq!(
        mma.to_string(),
        "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 256, 16]}>"
    );
    let dot = Encoding::from(DotOperandEncoding::new(0, mma.clone(), 2));
    assert_eq!(
        dot.to_string(),
        format!("#ttg.dot_op<{{opIdx = 0, parent = {mma}, kWidth = 2}}>")
    );
    let sh = Encoding::from(NvmmaSharedEncoding::new(128, false, 16));
    assert_eq!(
        sh.to_string(),
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>"
    );
    let sw = Encoding::from(SwizzledSharedEncoding::new(8, 1, 4, vec![1, 0]));
    assert_eq!(
        sw.to_string(),
        "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 4, order = [1, 0]}>"
    );
}

#[test]
fn roundtrips() {
    let b = Encoding::from(BlockedEncoding::new(
        vec![1, 4],
        vec![2, 16],
        vec![4, 1],
        vec![1, 0],
    ));
    let mut bc = BlockedEncoding::new(vec![1, 4], vec![2, 16], vec![4, 1], vec![1, 0]);
    bc.cta_layout = CtaLayout::new(vec![2, 1], vec![2, 1], vec![1, 0]);
    let mma = Encoding::from(NvidiaMmaEncoding::v2(vec![2, 2]));
    let mut nv = NvmmaSharedEncoding::new(32, true, 8);
    nv.fp4_padded = true;
    for e in [
        b.clone(),
        Encoding::from(bc),
        Encoding::from(SliceEncoding::new(1, b.clone())),
        Encoding::from(SliceEncoding::new(
            0,
            Encoding::from(SliceEncoding::new(1, b.clone())),
        )),
        mma.clone(),
        Encoding::from(DotOperandEncoding::new(1, mma, 4)),
        Encoding::from(DotOperandEncoding::new(0, b, 0)),
        Encoding::from(SwizzledSharedEncoding::new(1, 1, 1, vec![0])),
        Encoding::from(nv),
    ] {
        roundtrip(&e);
    }
}

#[test]
fn aliases_resolve_in_order() {
    let text = r#"
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
#loc = loc("x.py":1:0)
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 2], instrShape = [16, 8]}>
#dot = #ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 8 : i32} {
"#;
    let a = parse_aliases(text).unwrap();
    let names: Vec<&str> = a.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, vec!["blocked", "mma", "dot"]);
    let Encoding::DotOperand(d) = &a[2].1 else {
        panic!()
    };
    assert_eq!(*d.parent, a[1].1);
    let lookup = |n: &str| a.iter().find(|(m, _)| m == n).map(|(_, e)| e.clone());
    let s = parse_encoding_with("#ttg.slice<{dim = 0, parent = #blocked}>", &lookup).unwrap();
    assert_eq!(s.rank(), Some(1));
    assert_eq!(parse_encoding_with("#blocked", &lookup).unwrap(), a[0].1);
}

#[test]
fn parse_errors() {
    for bad in [
        "#ttg.blocked<{sizePerThread = [4]}>",
        "#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0], foo = 1}>",
        "#ttg.linear<{register = [[1]]}>",
        "#blocked",
        "#ttg.slice<{dim = 0, parent = #ttg.blocked<{}>}>",
        "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}> trailing",
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = maybe, elementBitWidth = 16}>",
        "#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0], CTAOrder = [0]}>",
    ] {
        assert!(
            matches!(parse_encoding(bad), Err(LayoutError::Parse(_))),
            "{bad}"
        );
    }
}
