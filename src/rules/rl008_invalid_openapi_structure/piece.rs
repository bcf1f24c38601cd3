//! The vocabulary the two readings share: which `openapiv3` type a piece of the
//! document is read as. Its own file so that the structural walk (`fast`) and the
//! serde reading (`sections`) both depend on it and not on each other.

/// The type one piece is read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Piece {
    Str,
    Info,
    Servers,
    Security,
    Tags,
    ExternalDocs,
    PathItem,
    Schema,
    Response,
    Parameter,
    Example,
    RequestBody,
    Header,
    SecurityScheme,
    Link,
    Callback,
}
