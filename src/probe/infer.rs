//! The observed policy: what the client actually does, read from the journals.
