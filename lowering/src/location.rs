//! Source positions and names read through MLIR's location API, never by parsing printed
//! locations.

use mlir_sys::*;
use tritium_dialects::ffi::string_ref_str;

/// A `file:line:col` position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilePosition {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

impl std::fmt::Display for FilePosition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// The first file position inside `loc`: itself, a name's child, a call site's callee (the op's
/// own position) and then its caller, or the first of a fused location's parts that has one.
pub fn file_position(loc: MlirLocation) -> Option<FilePosition> {
    // SAFETY: `loc` is a live location; each getter is called on the kind it was checked to be,
    // and the filename identifier lives as long as the context.
    unsafe {
        if mlirLocationIsAFileLineColRange(loc) {
            let file = mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
            Some(FilePosition {
                file: string_ref_str(file).to_owned(),
                line: mlirLocationFileLineColRangeGetStartLine(loc).max(0) as u32,
                column: mlirLocationFileLineColRangeGetStartColumn(loc).max(0) as u32,
            })
        } else if mlirLocationIsAName(loc) {
            file_position(mlirLocationNameGetChildLoc(loc))
        } else if mlirLocationIsACallSite(loc) {
            file_position(mlirLocationCallSiteGetCallee(loc))
                .or_else(|| file_position(mlirLocationCallSiteGetCaller(loc)))
        } else if mlirLocationIsAFused(loc) {
            fused_parts(loc).into_iter().find_map(file_position)
        } else {
            None
        }
    }
}

/// The name of a named location (`loc("x_ptr"(#loc))`), `None` for every other kind.
pub fn location_name(loc: MlirLocation) -> Option<String> {
    // SAFETY: `loc` is a live location, checked to be a name location before its name is read.
    unsafe {
        mlirLocationIsAName(loc)
            .then(|| string_ref_str(mlirIdentifierStr(mlirLocationNameGetName(loc))).to_owned())
    }
}

/// The locations a fused location combines.
///
/// # Safety
/// `loc` is a live fused location.
unsafe fn fused_parts(loc: MlirLocation) -> Vec<MlirLocation> {
    // SAFETY: by the contract `loc` is a live fused location; the buffer has room for each of
    // its parts.
    unsafe {
        let n = mlirLocationFusedGetNumLocations(loc) as usize;
        let mut parts = vec![mlirLocationUnknownGet(mlirLocationGetContext(loc)); n];
        mlirLocationFusedGetLocations(loc, parts.as_mut_ptr());
        parts
    }
}

/// Whether `loc` names a file position the way MLIR's debug-info passes look for one (a call
/// site through its caller).
pub fn has_file(loc: MlirLocation) -> bool {
    // SAFETY: `loc` is a live location; the getters are called on the matching kinds.
    unsafe {
        if mlirLocationIsAFileLineColRange(loc) {
            true
        } else if mlirLocationIsAName(loc) {
            has_file(mlirLocationNameGetChildLoc(loc))
        } else if mlirLocationIsACallSite(loc) {
            has_file(mlirLocationCallSiteGetCaller(loc))
        } else if mlirLocationIsAFused(loc) {
            fused_parts(loc).into_iter().any(has_file)
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CString;

    fn parse(context: &tritium_dialects::melior::Context, text: &str) -> MlirLocation {
        let text = CString::new(text).unwrap();
        // SAFETY: the context is live and the text NUL-terminated; an attribute that is a
        // location converts to one.
        unsafe {
            let attribute = mlirAttributeParseGet(
                context.to_raw(),
                mlirStringRefCreateFromCString(text.as_ptr()),
            );
            mlirLocationFromAttribute(attribute)
        }
    }

    #[test]
    fn positions_and_names_come_from_the_location_api() {
        let context = tritium_dialects::context::new_context();
        let at = |text: &str| file_position(parse(&context, text)).map(|p| p.to_string());
        assert_eq!(at(r#"loc("k.ttir":3:7)"#).as_deref(), Some("k.ttir:3:7"));
        assert_eq!(
            at(r#"loc("da"("sampler.py":137:35))"#).as_deref(),
            Some("sampler.py:137:35")
        );
        assert_eq!(
            at(r#"loc(callsite("x"("a.py":1:2) at "b.py":3:4))"#).as_deref(),
            Some("a.py:1:2")
        );
        assert_eq!(
            at(r#"loc(fused["a.py":5:6, "b.py":7:8])"#).as_deref(),
            Some("a.py:5:6")
        );
        assert_eq!(at("loc(unknown)"), None);
        let name = |text: &str| location_name(parse(&context, text));
        assert_eq!(
            name(r#"loc("x_ptr"("k.py":1:0))"#).as_deref(),
            Some("x_ptr")
        );
        assert_eq!(name(r#"loc("n")"#).as_deref(), Some("n"));
        assert_eq!(name(r#"loc("k.ttir":3:7)"#), None);
        assert_eq!(name("loc(unknown)"), None);
    }
}
