//! JSON Schemas of the wire forms, generated from the types (checked in under
//! the repository's `contracts/`).

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::Value;

use crate::envelope::Envelope;
use crate::event::Event;
use crate::generate::HostMessage;

/// The protocol's contract schemas: file name under `contracts/` → schema.
/// What the host writes (the envelope, the replies to `generate`) is described
/// as written; what the host reads (events) as accepted, optional fields with
/// defaults included.
pub fn contract_schemas() -> Vec<(&'static str, Value)> {
    vec![
        (
            "protocol-envelope.schema.json",
            schema::<Envelope>(SchemaSettings::draft2020_12().for_serialize()),
        ),
        (
            "protocol-event.schema.json",
            schema::<Event>(SchemaSettings::draft2020_12().for_deserialize()),
        ),
        (
            "protocol-generated.schema.json",
            schema::<HostMessage>(SchemaSettings::draft2020_12().for_serialize()),
        ),
        (
            "state-gm.schema.json",
            schema::<crate::table::Table>(SchemaSettings::draft2020_12().for_serialize()),
        ),
    ]
}

fn schema<T: JsonSchema>(settings: SchemaSettings) -> Value {
    serde_json::to_value(settings.into_generator().into_root_schema_for::<T>())
        .expect("schema serialises")
}
