//! Reading one annotation attribute as a [`Setting`]: a literal (or same-file
//! constant, or an expression attribute holding a plain number) is read exactly; a
//! placeholder or SpEL expression (`#{${service.retry.maxAttempts}}`, `${x}`) or a
//! constant of another file is assumed to be the library default (RL019).

use super::super::model::Setting;
use super::super::CodeFile;
use super::ast::{self, FileIndex};
use tree_sitter::Node;

/// What a numeric attribute gave.
pub enum Num {
    /// Read: the value and its node's span.
    Known(f64, std::ops::Range<usize>),
    /// Written but not statically known: the text and span.
    Unknown(String, std::ops::Range<usize>),
}

/// The numeric attribute `keys[0]` (a literal) or `expr_keys` (a string holding a
/// number or an expression).
pub fn num(
    file: &CodeFile<'_>,
    idx: &FileIndex,
    args: &[(String, Node<'_>)],
    keys: &[&str],
    expr_keys: &[&str],
) -> Option<Num> {
    if let Some(v) = ast::arg(args, keys) {
        return Some(match ast::number(file, idx, v) {
            Some(n) => Num::Known(n, v.byte_range()),
            None => Num::Unknown(file.text_of(v).to_string(), v.byte_range()),
        });
    }
    let v = ast::arg(args, expr_keys)?;
    Some(match ast::string_value(file, idx, v) {
        Some(s) => match ast::parse_number(s.trim()) {
            Some(n) => Num::Known(n, v.byte_range()),
            None if s.trim().is_empty() => return None,
            None => match super::properties::resolve_number(&s, &idx.props) {
                Some((n, from)) => {
                    idx.resolved
                        .borrow_mut()
                        .push((v.byte_range(), format!("{s} = {n}: {from}")));
                    Num::Known(n, v.byte_range())
                }
                None => Num::Unknown(s, v.byte_range()),
            },
        },
        None => Num::Unknown(file.text_of(v).to_string(), v.byte_range()),
    })
}

/// `num` as a setting: `scale` converts the read value (ms per unit, `+1` for
/// retries is done by the caller through `map`); `default` (already converted) with
/// its source when absent; assumed to be the default when not known.
#[allow(clippy::too_many_arguments)]
pub fn setting<T: Clone>(
    file: &CodeFile<'_>,
    idx: &FileIndex,
    args: &[(String, Node<'_>)],
    keys: &[&str],
    expr_keys: &[&str],
    at: std::ops::Range<usize>,
    default: (T, &str),
    map: impl Fn(f64) -> T,
) -> Setting<T> {
    match num(file, idx, args, keys, expr_keys) {
        Some(Num::Known(n, span)) => Setting::literal(map(n), span),
        Some(Num::Unknown(text, span)) => Setting::assumed(
            default.0,
            span,
            text,
            format!("the library default: {}", default.1),
        ),
        None => Setting::default(default.0, at, default.1),
    }
}
