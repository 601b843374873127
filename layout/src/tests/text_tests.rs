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

#[test]
fn linear_text_roundtrips() {
    let text = "#ttg.linear<{register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]], block = []}>";
    let e = parse_encoding(text).unwrap();
    let Encoding::Linear(l) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(l.rank, 2);
    assert_eq!(l.register, vec![vec![0, 1], vec![0, 2]]);
    assert!(l.block.is_empty());
    assert_eq!(e.to_string(), text);
    roundtrip(&e);
    // No bases at all: rank 0, as Triton's parser infers it.
    let empty =
        parse_encoding("#ttg.linear<{register = [], lane = [], warp = [], block = []}>").unwrap();
    assert_eq!(
        empty,
        Encoding::from(LinearEncoding::new(vec![], vec![], vec![], vec![]))
    );
    assert_eq!(empty.rank(), None);
    // As an alias, and as a slice parent.
    let module = format!("#linear = {text}\n#s = #ttg.slice<{{dim = 0, parent = #linear}}>\n");
    let aliases = parse_aliases(&module).unwrap();
    assert_eq!(aliases.len(), 2);
    assert_eq!(aliases[0].1, e);
    assert!(matches!(&aliases[1].1, Encoding::Slice(s) if *s.parent == e));
    assert!(
        parse_encoding("#ttg.linear<{register = [1], lane = [], warp = [], block = []}>").is_err()
    );
}
