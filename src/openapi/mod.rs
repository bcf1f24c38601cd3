//! Located tree -> endpoint model, one code path for Swagger 2.0, OpenAPI 3.0, 3.1.

pub mod model;
