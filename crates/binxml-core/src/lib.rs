//! binxml-core: the infoset event model every binxml codec speaks.
//!
//! *The infoset is a stream of events; every format is a codec.* This crate holds the one event
//! model ([`Event`]), the [`Decoder`] and [`Encoder`] traits, the one [`Error`] type and the
//! [`Limits`] every decoder enforces. Codec crates depend on this crate only, never on each other.

// One function converts checked ASCII without revalidating it (see `ascii`); nothing else may
// use `unsafe`.
#![deny(unsafe_code)]

pub mod ascii;
pub mod base64;
pub mod codec;
pub mod error;
pub mod event;
pub mod format;
pub mod fragments;
pub mod hash;
pub mod json_mapping;
pub mod lent;
pub mod limits;
pub mod tape;
mod xml4_names;

pub use codec::{
    BATCH_EVENTS, BatchSink, CountingSink, Decoder, Encoder, EncoderSink, EventSink, NameRef,
    NameTable, Recorder, Replay, StreamChecker, collect_events, next_batch_by_push,
    next_lent_by_push, transcode,
};
pub use error::{Error, ErrorKind, Result};
pub use event::{DocType, Event, QName, Typed};
pub use format::{Format, UnknownFormat};
pub use fragments::XmlFragments;
pub use lent::{LentBatch, LentEvent, LentKind, Views};
pub use limits::Limits;
pub use tape::Tape;

/// The namespace name bound to the `xml` prefix.
pub const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";
/// The namespace name of `xmlns` attributes.
pub const XMLNS_NS: &str = "http://www.w3.org/2000/xmlns/";
