//! The crate's error type.

use std::fmt;

/// Everything that can go wrong building or combining layouts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// Malformed bases or sizes (non-power-of-two, out-of-range coordinate,
    /// duplicate dim, too many bits).
    InvalidLayout(String),
    /// Dimensions of two layouts (or a layout and a shape) do not line up.
    DimMismatch(String),
    /// `invert` of a layout that is not surjective.
    NotSurjective,
    /// `invert_and_compose` where part of `self`'s image is not reachable
    /// through the other layout.
    NotInImage(String),
    /// Encoding parameters that do not describe a valid layout for the shape.
    InvalidEncoding(String),
    /// Text that is not a recognised `#ttg.*` encoding attribute.
    Parse(String),
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::InvalidLayout(m) => write!(f, "invalid linear layout: {m}"),
            LayoutError::DimMismatch(m) => write!(f, "dimension mismatch: {m}"),
            LayoutError::NotSurjective => write!(f, "layout is not surjective"),
            LayoutError::NotInImage(m) => write!(f, "not in image: {m}"),
            LayoutError::InvalidEncoding(m) => write!(f, "invalid encoding: {m}"),
            LayoutError::Parse(m) => write!(f, "parse error: {m}"),
        }
    }
}

impl std::error::Error for LayoutError {}
