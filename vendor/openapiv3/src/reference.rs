use serde::{Deserialize, Serialize};

#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(untagged)]
pub enum ReferenceOr<T> {
    Reference {
        #[serde(rename = "$ref")]
        reference: String,
    },
    Item(T),
}

// retrylint's patch (see VENDORED.md). Upstream reads an untagged enum
// `Reference | Item(T) | Fail(serde_json::Value)` and, on `Fail`, reads `T` again
// from the value for a useful error. Inside that second read every nested failing
// `ReferenceOr` did the same, so a failing path read its subtree twice per level:
// 2^depth reads (a 20-level schema with one bad leaf took 48 s). The first read is
// unchanged here; the second runs in "explaining" mode, where each nested
// `ReferenceOr` reads its value once (the same `Reference` test, the same `T` read
// from the same value, hence the same error message): linear per failing level.
std::thread_local! {
    static EXPLAINING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Sets explaining mode until dropped (restoring the previous mode).
struct Explaining(bool);

impl Explaining {
    fn enter() -> Explaining {
        Explaining(EXPLAINING.with(|e| e.replace(true)))
    }
}

impl Drop for Explaining {
    fn drop(&mut self) {
        EXPLAINING.with(|e| e.set(self.0));
    }
}

impl<'de, T> Deserialize<'de> for ReferenceOr<T>
where
    T: serde::de::DeserializeOwned,
{
    fn deserialize<D>(deserializer: D) -> Result<Self, D::Error>
    where
        D: serde::Deserializer<'de>,
    {
        if EXPLAINING.with(|e| e.get()) {
            // What the untagged `Reference` variant accepts: a map whose `$ref` is a
            // string, or a sequence of exactly one string.
            let value = serde_json::Value::deserialize(deserializer)?;
            let reference = match &value {
                serde_json::Value::Object(map) => map.get("$ref").and_then(|r| r.as_str()),
                serde_json::Value::Array(items) if items.len() == 1 => items[0].as_str(),
                _ => None,
            };
            if let Some(reference) = reference {
                return Ok(ReferenceOr::Reference {
                    reference: reference.to_owned(),
                });
            }
            return T::deserialize(value)
                .map(ReferenceOr::Item)
                .map_err(<D::Error as serde::de::Error>::custom);
        }

        #[derive(Deserialize)]
        #[serde(untagged)]
        enum RefOrInner<TT> {
            Reference {
                #[serde(rename = "$ref")]
                reference: String,
            },
            Item(TT),
            Fail(serde_json::Value),
        }

        let inner = RefOrInner::<T>::deserialize(deserializer)?;

        match inner {
            RefOrInner::Reference { reference } => Ok(ReferenceOr::Reference { reference }),
            RefOrInner::Item(item) => Ok(ReferenceOr::Item(item)),

            // Read again from the value for the error message, once per level.
            RefOrInner::Fail(value) => {
                let _explaining = Explaining::enter();
                match T::deserialize(value) {
                    Err(e) => Err(<D::Error as serde::de::Error>::custom(e)),
                    // Upstream panicked here ("somehow this parsed successfully the
                    // second time"); an error is enough.
                    Ok(_) => Err(<D::Error as serde::de::Error>::custom(
                        "data did not match a reference or an item",
                    )),
                }
            }
        }
    }
}

impl<T> ReferenceOr<T> {
    pub fn ref_(r: &str) -> Self {
        ReferenceOr::Reference {
            reference: r.to_owned(),
        }
    }
    pub fn boxed_item(item: T) -> ReferenceOr<Box<T>> {
        ReferenceOr::Item(Box::new(item))
    }

    /// Converts this [ReferenceOr] to the item inside, if it exists.
    ///
    /// The return value will be [Option::Some] if this was a [ReferenceOr::Item] or [Option::None] if this was a [ReferenceOr::Reference].
    ///
    /// # Examples
    ///
    /// ```
    /// # use openapiv3::ReferenceOr;
    ///
    /// let i = ReferenceOr::Item(1);
    /// assert_eq!(i.into_item(), Some(1));
    ///
    /// let j: ReferenceOr<u8> = ReferenceOr::Reference { reference: String::new() };
    /// assert_eq!(j.into_item(), None);
    /// ```
    pub fn into_item(self) -> Option<T> {
        match self {
            ReferenceOr::Reference { .. } => None,
            ReferenceOr::Item(i) => Some(i),
        }
    }

    /// Returns a reference to to the item inside this [ReferenceOr], if it exists.
    ///
    /// The return value will be [Option::Some] if this was a [ReferenceOr::Item] or [Option::None] if this was a [ReferenceOr::Reference].
    ///
    /// # Examples
    ///
    /// ```
    /// # use openapiv3::ReferenceOr;
    ///
    /// let i = ReferenceOr::Item(1);
    /// assert_eq!(i.as_item(), Some(&1));
    ///
    /// let j: ReferenceOr<u8> = ReferenceOr::Reference { reference: String::new() };
    /// assert_eq!(j.as_item(), None);
    /// ```
    pub fn as_item(&self) -> Option<&T> {
        match self {
            ReferenceOr::Reference { .. } => None,
            ReferenceOr::Item(i) => Some(i),
        }
    }
}

impl<T> ReferenceOr<Box<T>> {
    pub fn unbox(self) -> ReferenceOr<T> {
        match self {
            ReferenceOr::Reference { reference } => ReferenceOr::Reference { reference },
            ReferenceOr::Item(boxed) => ReferenceOr::Item(*boxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::{ReferenceOr, Schema, SchemaKind, Type};

    #[test]
    fn test_bad_responses() {
        // Note: missing the "description" field
        let value = json!({
            "200": {
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "string"
                        }
                    }
                }
            }
        });

        match serde_json::from_value::<crate::Responses>(value) {
            Ok(_) => unreachable!(),
            Err(e) => assert!(
                e.to_string().contains("missing field `description`"),
                "unhelpful error: {e}"
            ),
        }
    }

    #[test]
    fn test_ref_or_order() {
        let value = r#"
        {
            "type": "object",
            "properties": {
                "z": {},
                "a": {},
                "b": {}
            }
        }
        "#;

        let obj = serde_json::from_str::<ReferenceOr<Schema>>(value).unwrap();

        let ReferenceOr::Item(obj) = obj else {
            panic!()
        };

        let SchemaKind::Type(Type::Object(obj)) = obj.schema_kind else {
            panic!()
        };

        let props = obj.properties.keys().collect::<Vec<_>>();
        assert_eq!(props.as_slice(), ["z", "a", "b"]);
    }

    #[test]
    fn test_ref_and() {
        // Note: missing the "description" field
        let value = json!({
            "description": "this is ignored",
            "$ref": "#/foo/bar"
        });

        let ref_or_schema = serde_json::from_value::<ReferenceOr<Schema>>(value);

        match ref_or_schema {
            // Expected case
            Ok(ReferenceOr::Reference { .. }) => (),

            Ok(ReferenceOr::Item(_)) => panic!("parsed as item"),
            Err(e) => panic!("failed to parse: {e}"),
        }
    }
}
