//! A serde `Deserializer` over the located tree that reads a node exactly as
//! `&serde_json::Value` reads the value RL008's conversion makes of it (same scalar
//! types, merge keys applied, last repeated key wins, sequences and mappings checked
//! for leftovers), without building that value. RL008 uses it only to learn whether
//! the typed model accepts a document; a rejection is re-read through the value for
//! its path and message, so any difference here can only cost time, as long as this
//! reader is never more lenient than the value's.

use crate::source::tree::{Kind, NodeId, Tree};
use serde::de::{self, DeserializeSeed, Unexpected, Visitor};
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Why the tree did not read: the message only (the value path gives the details).
#[derive(Debug)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

/// Shared bounds: nodes left to read and deepest nesting (as RL008's conversion).
/// May be shared by the threads reading the pieces of one document: the count is a
/// relaxed load and store, not a locked decrement, so concurrent readers can overrun
/// it by a few nodes each, which is still a bound.
pub struct Limits {
    budget: AtomicUsize,
    max_depth: usize,
}

impl Limits {
    /// At most `budget` nodes (aliases counted each time) and `max_depth` levels.
    pub fn new(budget: usize, max_depth: usize) -> Limits {
        Limits {
            budget: AtomicUsize::new(budget),
            max_depth,
        }
    }
}

/// One node to read.
#[derive(Clone, Copy)]
pub struct NodeDe<'t> {
    tree: &'t Tree,
    node: NodeId,
    depth: usize,
    limits: &'t Limits,
}

impl<'t> NodeDe<'t> {
    /// The reader of `node` found `depth` levels below the document root (so the
    /// depth bound counts as when the whole document is read).
    pub fn at_depth(tree: &'t Tree, node: NodeId, depth: usize, limits: &'t Limits) -> NodeDe<'t> {
        NodeDe {
            tree,
            node,
            depth,
            limits,
        }
    }

    fn child(&self, node: NodeId) -> NodeDe<'t> {
        NodeDe {
            node,
            depth: self.depth + 1,
            ..*self
        }
    }
}

/// A scalar as the conversion types it.
enum Scalar<'t> {
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    Str(&'t str),
}

fn scalar<'t>(tree: &'t Tree, node: NodeId) -> Scalar<'t> {
    let text = tree.scalar(node).unwrap_or("");
    let float = |t: &'t str| {
        tree.as_f64(node)
            .filter(|f| f.is_finite())
            .map_or(Scalar::Str(t), Scalar::F64)
    };
    match tree.kind(node) {
        Kind::Null => Scalar::Null,
        Kind::Bool => Scalar::Bool(tree.as_bool(node).unwrap_or(false)),
        Kind::Int => match tree.as_i64(node) {
            Some(v) if v < 0 => Scalar::I64(v),
            Some(v) => Scalar::U64(v as u64),
            None => match text.trim_start_matches('+').parse::<u64>() {
                Ok(v) => Scalar::U64(v),
                Err(_) => float(text),
            },
        },
        Kind::Float => float(text),
        _ => Scalar::Str(text),
    }
}

impl<'t> NodeDe<'t> {
    fn enter(&self) -> Result<(), Error> {
        let left = self.limits.budget.load(Ordering::Relaxed);
        if left == 0 || self.depth >= self.limits.max_depth {
            return Err(Error("too large or too deep".to_string()));
        }
        self.limits.budget.store(left - 1, Ordering::Relaxed);
        Ok(())
    }

    fn unexpected(&self) -> Unexpected<'t> {
        match self.tree.kind(self.node) {
            Kind::Map => Unexpected::Map,
            Kind::Seq => Unexpected::Seq,
            _ => match scalar(self.tree, self.node) {
                Scalar::Null => Unexpected::Unit,
                Scalar::Bool(b) => Unexpected::Bool(b),
                Scalar::U64(v) => Unexpected::Unsigned(v),
                Scalar::I64(v) => Unexpected::Signed(v),
                Scalar::F64(v) => Unexpected::Float(v),
                Scalar::Str(s) => Unexpected::Str(s),
            },
        }
    }

    fn seq<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Error> {
        let items = self.tree.items(self.node);
        let mut access = SeqAccess {
            de: self,
            items: items.iter(),
        };
        let value = visitor.visit_seq(&mut access)?;
        match access.items.len() {
            0 => Ok(value),
            _ => Err(de::Error::invalid_length(
                items.len(),
                &"fewer elements in array",
            )),
        }
    }

    fn map<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Error> {
        let entries: Vec<(NodeId, NodeId)> = self
            .tree
            .entries(self.node)
            .into_iter()
            .filter(|&(k, _)| self.tree.scalar(k).is_some())
            .collect();
        let len = entries.len();
        let mut access = MapAccess {
            de: self,
            entries: entries.into_iter(),
            value: None,
        };
        let value = visitor.visit_map(&mut access)?;
        match access.entries.len() {
            0 => Ok(value),
            _ => Err(de::Error::invalid_length(len, &"fewer elements in map")),
        }
    }
}

impl<'t> de::Deserializer<'t> for NodeDe<'t> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Error> {
        self.enter()?;
        match self.tree.kind(self.node) {
            Kind::Seq => self.seq(visitor),
            Kind::Map => self.map(visitor),
            _ => match scalar(self.tree, self.node) {
                Scalar::Null => visitor.visit_unit(),
                Scalar::Bool(b) => visitor.visit_bool(b),
                Scalar::U64(v) => visitor.visit_u64(v),
                Scalar::I64(v) => visitor.visit_i64(v),
                Scalar::F64(v) => visitor.visit_f64(v),
                Scalar::Str(s) => visitor.visit_borrowed_str(s),
            },
        }
    }

    fn deserialize_option<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.tree.kind(self.node) {
            Kind::Null => {
                self.enter()?;
                visitor.visit_none()
            }
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_enum<V: Visitor<'t>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.enter()?;
        match self.tree.kind(self.node) {
            Kind::Map => {
                let entries: Vec<(NodeId, NodeId)> = self
                    .tree
                    .entries(self.node)
                    .into_iter()
                    .filter(|&(k, _)| self.tree.scalar(k).is_some())
                    .collect();
                let [(k, v)] = entries.as_slice() else {
                    return Err(de::Error::invalid_value(
                        Unexpected::Map,
                        &"map with a single key",
                    ));
                };
                visitor.visit_enum(Enum {
                    variant: self.tree.scalar(*k).unwrap_or(""),
                    value: Some(self.child(*v)),
                })
            }
            _ => match scalar(self.tree, self.node) {
                Scalar::Str(s) if self.tree.kind(self.node) != Kind::Seq => {
                    visitor.visit_enum(Enum {
                        variant: s,
                        value: None,
                    })
                }
                _ => Err(de::Error::invalid_type(self.unexpected(), &"string or map")),
            },
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'t>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_bool<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Error> {
        self.enter()?;
        match (self.tree.kind(self.node), scalar(self.tree, self.node)) {
            (Kind::Bool, Scalar::Bool(b)) => visitor.visit_bool(b),
            _ => Err(de::Error::invalid_type(self.unexpected(), &visitor)),
        }
    }

    fn deserialize_str<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Error> {
        self.enter()?;
        match self.tree.kind(self.node) {
            Kind::Map | Kind::Seq => Err(de::Error::invalid_type(self.unexpected(), &visitor)),
            _ => match scalar(self.tree, self.node) {
                Scalar::Str(s) => visitor.visit_borrowed_str(s),
                _ => Err(de::Error::invalid_type(self.unexpected(), &visitor)),
            },
        }
    }

    fn deserialize_string<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_unit<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Error> {
        self.enter()?;
        match self.tree.kind(self.node) {
            Kind::Null => visitor.visit_unit(),
            _ => Err(de::Error::invalid_type(self.unexpected(), &visitor)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'t>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_seq<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Error> {
        self.enter()?;
        match self.tree.kind(self.node) {
            Kind::Seq => self.seq(visitor),
            _ => Err(de::Error::invalid_type(self.unexpected(), &visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'t>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'t>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Error> {
        self.enter()?;
        match self.tree.kind(self.node) {
            Kind::Map => self.map(visitor),
            _ => Err(de::Error::invalid_type(self.unexpected(), &visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'t>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.enter()?;
        match self.tree.kind(self.node) {
            Kind::Map => self.map(visitor),
            Kind::Seq => self.seq(visitor),
            _ => Err(de::Error::invalid_type(self.unexpected(), &visitor)),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'t>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        <W: Visitor<'t>>
        i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char bytes byte_buf
    }
}

struct SeqAccess<'t, 'a> {
    de: NodeDe<'t>,
    items: std::slice::Iter<'a, NodeId>,
}

impl<'t> de::SeqAccess<'t> for SeqAccess<'t, '_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'t>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        match self.items.next() {
            Some(&item) => seed.deserialize(self.de.child(item)).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct MapAccess<'t> {
    de: NodeDe<'t>,
    entries: std::vec::IntoIter<(NodeId, NodeId)>,
    value: Option<NodeId>,
}

impl<'t> de::MapAccess<'t> for MapAccess<'t> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'t>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some((k, v)) = self.entries.next() else {
            return Ok(None);
        };
        self.value = Some(v);
        let key: &'t str = self.de.tree.scalar(k).unwrap_or("");
        let key: de::value::BorrowedStrDeserializer<'t, Error> =
            de::value::BorrowedStrDeserializer::new(key);
        seed.deserialize(key).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'t>>(&mut self, seed: V) -> Result<V::Value, Error> {
        match self.value.take() {
            Some(v) => seed.deserialize(self.de.child(v)),
            None => Err(de::Error::custom("value is missing")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

struct Enum<'t> {
    variant: &'t str,
    value: Option<NodeDe<'t>>,
}

impl<'t> de::EnumAccess<'t> for Enum<'t> {
    type Error = Error;
    type Variant = Variant<'t>;

    fn variant_seed<S: DeserializeSeed<'t>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Variant<'t>), Error> {
        let key: de::value::BorrowedStrDeserializer<'t, Error> =
            de::value::BorrowedStrDeserializer::new(self.variant);
        let v = seed.deserialize(key)?;
        Ok((v, Variant { value: self.value }))
    }
}

struct Variant<'t> {
    value: Option<NodeDe<'t>>,
}

impl<'t> de::VariantAccess<'t> for Variant<'t> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.value {
            Some(v) => de::Deserialize::deserialize(v),
            None => Ok(()),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'t>>(self, seed: T) -> Result<T::Value, Error> {
        match self.value {
            Some(v) => seed.deserialize(v),
            None => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"newtype variant",
            )),
        }
    }

    fn tuple_variant<V: Visitor<'t>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Some(v) => de::Deserializer::deserialize_seq(v, visitor),
            None => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"tuple variant",
            )),
        }
    }

    fn struct_variant<V: Visitor<'t>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.value {
            Some(v) => de::Deserializer::deserialize_map(v, visitor),
            None => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"struct variant",
            )),
        }
    }
}
