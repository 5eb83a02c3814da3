//! A generator of SOAP event-notification messages like the test data of the Xebu paper (a
//! 698-message sequence from an event notification system, SOAP, only integers as typed
//! content): hundreds of small messages sharing one vocabulary, each a complete document.
//!
//! Each message is a SOAP 1.1 envelope with addressing headers and a `Notify` body carrying
//! one event: its topic, publisher, timestamp, sequence number and a set of integer-valued
//! properties typed with `xsi:type`. The generator is deterministic for a given seed.
//!
//! The integer values come out as [`Event::Typed`] (`Typed::Int`), as an application with data
//! binding supplies them; writing the events as XML gives their lexical form.

use std::borrow::Cow;

use binxml_core::{Error, Event, QName, Result, Typed};

/// The SOAP 1.1 envelope namespace.
pub const SOAP_NS: &str = "http://schemas.xmlsoap.org/soap/envelope/";
/// The WS-Addressing (August 2004) namespace of the message headers.
pub const WSA_NS: &str = "http://schemas.xmlsoap.org/ws/2004/08/addressing";
/// The namespace of the notification elements (`Notify`, `Event`, `SubscriptionId`, ...).
pub const EV_NS: &str = "http://www.hiit.fi/fuego/fc/event/notification";
/// The XML Schema instance namespace (`xsi:type` on the properties).
pub const XSI_NS: &str = "http://www.w3.org/2001/XMLSchema-instance";
/// The XML Schema namespace (the `xsd:` types that `xsi:type` names).
pub const XSD_NS: &str = "http://www.w3.org/2001/XMLSchema";

const TOPICS: &[(&str, &[&str])] = &[
    (
        "presence/status",
        &[
            "availability",
            "activity",
            "idleSeconds",
            "deviceClass",
            "batteryLevel",
        ],
    ),
    (
        "location/cell",
        &[
            "countryCode",
            "networkCode",
            "areaCode",
            "cellId",
            "signalStrength",
            "timingAdvance",
            "neighbourCount",
        ],
    ),
    (
        "system/load",
        &[
            "cpuLoad",
            "freeMemory",
            "totalMemory",
            "threadCount",
            "openConnections",
            "queueLength",
            "uptimeSeconds",
            "gcCount",
        ],
    ),
    (
        "messaging/inbox",
        &["unreadCount", "totalCount", "lastMessageSize", "folderId"],
    ),
    (
        "sensor/environment",
        &[
            "temperature",
            "humidity",
            "pressure",
            "illuminance",
            "noiseLevel",
            "co2Level",
        ],
    ),
];

const PUBLISHERS: &[&str] = &[
    "http://fuego.hiit.fi/publisher/presence-server",
    "http://fuego.hiit.fi/publisher/location-tracker",
    "http://fuego.hiit.fi/publisher/monitor-01",
    "http://fuego.hiit.fi/publisher/mail-gateway",
    "http://fuego.hiit.fi/publisher/sensor-net",
];

/// SplitMix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Generator settings.
///
/// Build them from [`NotifyOptions::default`] and the `with_...` setters. The fields that any
/// value suits are public; the number of subscribers is read through
/// [`NotifyOptions::subscribers`] and set through [`NotifyOptions::with_subscribers`], which
/// refuses 0 (an error of kind
/// [`ErrorKind::InvalidOptions`](binxml_core::ErrorKind::InvalidOptions)). The struct is
/// `#[non_exhaustive]`, so new settings can be added without breaking callers.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct NotifyOptions {
    /// Seed of the pseudo-random choices: the same seed gives the same messages.
    pub seed: u64,
    /// Integer content as `Event::Typed` (true) or as text (false).
    pub typed: bool,
    /// Indent the XML (newline and two spaces per level) as pretty-printing SOAP stacks do.
    pub indent: bool,
    /// Subscribers the notifications go to (at least 1).
    subscribers: u64,
}

impl Default for NotifyOptions {
    fn default() -> Self {
        NotifyOptions {
            seed: 2005,
            typed: true,
            indent: false,
            subscribers: 12,
        }
    }
}

impl NotifyOptions {
    /// The number of subscribers the notifications go to (12 by default).
    pub fn subscribers(&self) -> u64 {
        self.subscribers
    }

    /// The same settings with `n` subscribers. Errors
    /// ([`ErrorKind::InvalidOptions`](binxml_core::ErrorKind::InvalidOptions)): `n` is 0 (every
    /// notification goes to one of them).
    pub fn with_subscribers(mut self, n: u64) -> Result<Self> {
        if n == 0 {
            return Err(Error::invalid_options(
                crate::FORMAT,
                "the notifications need at least one subscriber",
            ));
        }
        self.subscribers = n;
        Ok(self)
    }

    /// Sets [`seed`](NotifyOptions::seed): the seed of the pseudo-random choices.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Sets [`typed`](NotifyOptions::typed): integer content as `Event::Typed` (or as text).
    pub fn with_typed(mut self, typed: bool) -> Self {
        self.typed = typed;
        self
    }

    /// Sets [`indent`](NotifyOptions::indent): indent the XML as pretty-printing SOAP stacks do.
    pub fn with_indent(mut self, indent: bool) -> Self {
        self.indent = indent;
        self
    }
}

/// Builds events for one message.
struct B {
    ev: Vec<Event<'static>>,
    depth: usize,
    indent: bool,
    typed: bool,
}

fn q(prefix: &'static str, ns: &'static str, local: &'static str) -> QName<'static> {
    QName {
        prefix: Cow::Borrowed(prefix),
        namespace: Cow::Borrowed(ns),
        local: Cow::Borrowed(local),
    }
}

impl B {
    fn nl(&mut self) {
        if self.indent {
            let mut s = String::with_capacity(1 + 2 * self.depth);
            s.push('\n');
            for _ in 0..self.depth {
                s.push_str("  ");
            }
            self.ev.push(Event::text(s));
        }
    }
    fn open(&mut self, name: QName<'static>) {
        self.nl();
        self.ev.push(Event::StartElement(name));
        self.depth += 1;
    }
    fn ns(&mut self, prefix: &'static str, uri: &'static str) {
        self.ev.push(Event::Namespace {
            prefix: Cow::Borrowed(prefix),
            uri: Cow::Borrowed(uri),
        });
    }
    fn attr(&mut self, name: QName<'static>, value: impl Into<Cow<'static, str>>) {
        self.ev.push(Event::Attribute {
            name,
            value: value.into(),
        });
    }
    /// Closes an element that has element children.
    fn close(&mut self) {
        self.depth -= 1;
        self.nl();
        self.ev.push(Event::EndElement);
    }
    fn leaf(&mut self, name: QName<'static>, text: impl Into<Cow<'static, str>>) {
        self.nl();
        self.ev.push(Event::StartElement(name));
        self.ev.push(Event::text(text));
        self.ev.push(Event::EndElement);
    }
    fn int(&mut self, name: QName<'static>, xsd_type: &'static str, v: i64) {
        self.nl();
        self.ev.push(Event::StartElement(name));
        self.attr(q("xsi", XSI_NS, "type"), xsd_type);
        if self.typed {
            self.ev.push(Event::Typed(Typed::Int(v)));
        } else {
            self.ev.push(Event::text(v.to_string()));
        }
        self.ev.push(Event::EndElement);
    }
}

/// Generates `count` notification messages, each a complete document event sequence.
pub fn messages(count: usize, opts: &NotifyOptions) -> Vec<Vec<Event<'static>>> {
    let mut rng = Rng(opts.seed);
    let mut out = Vec::with_capacity(count);
    let mut clock: i64 = 1_132_500_000_000; // November 2005, in milliseconds
    // Running state per topic, so that values drift like real measurements.
    let mut state: Vec<Vec<i64>> = TOPICS
        .iter()
        .map(|(_, props)| props.iter().map(|_| rng.below(1000) as i64).collect())
        .collect();
    for seq in 0..count {
        clock += 200 + rng.below(5000) as i64;
        let t = rng.below(TOPICS.len() as u64) as usize;
        let (topic, props) = TOPICS[t];
        let subscriber = rng.below(opts.subscribers);
        let mut b = B {
            ev: Vec::with_capacity(128),
            depth: 0,
            indent: opts.indent,
            typed: opts.typed,
        };
        b.ev.push(Event::StartDocument {
            version: Some(Cow::Borrowed("1.0")),
            encoding: Some(Cow::Borrowed("UTF-8")),
            standalone: None,
        });
        b.ev.push(Event::StartElement(q("soapenv", SOAP_NS, "Envelope")));
        b.depth += 1;
        b.ns("soapenv", SOAP_NS);
        b.ns("xsd", XSD_NS);
        b.ns("xsi", XSI_NS);
        b.open(q("soapenv", SOAP_NS, "Header"));
        b.open(q("wsa", WSA_NS, "MessageID"));
        b.ns("wsa", WSA_NS);
        b.ev.push(Event::text(format!(
            "uuid:{:08x}-{:04x}-4{:03x}-a{:03x}-{:012x}",
            rng.next() as u32,
            rng.next() as u16,
            rng.below(0x1000),
            rng.below(0x1000),
            rng.next() & 0xFFFF_FFFF_FFFF
        )));
        b.ev.push(Event::EndElement);
        b.depth -= 1;
        b.open(q("wsa", WSA_NS, "To"));
        b.ns("wsa", WSA_NS);
        b.ev.push(Event::text(format!(
            "http://fuego.hiit.fi/subscriber/{subscriber}/notifications"
        )));
        b.ev.push(Event::EndElement);
        b.depth -= 1;
        b.open(q("wsa", WSA_NS, "Action"));
        b.ns("wsa", WSA_NS);
        b.ev.push(Event::text(
            "http://www.hiit.fi/fuego/fc/event/notification/Notify",
        ));
        b.ev.push(Event::EndElement);
        b.depth -= 1;
        b.open(q("ev", EV_NS, "SubscriptionId"));
        b.ns("ev", EV_NS);
        b.attr(q("soapenv", SOAP_NS, "mustUnderstand"), "1");
        b.attr(q("xsi", XSI_NS, "type"), "xsd:long");
        let sub_id = 7_000_000 + (subscriber * 31 + t as u64) as i64;
        if b.typed {
            b.ev.push(Event::Typed(Typed::Int(sub_id)));
        } else {
            b.ev.push(Event::text(sub_id.to_string()));
        }
        b.ev.push(Event::EndElement);
        b.depth -= 1;
        b.close(); // Header
        b.open(q("soapenv", SOAP_NS, "Body"));
        b.open(q("ev", EV_NS, "Notify"));
        b.ns("ev", EV_NS);
        b.open(q("ev", EV_NS, "Event"));
        b.attr(q("", "", "topic"), topic);
        b.attr(q("", "", "version"), "1");
        b.int(q("ev", EV_NS, "SequenceNumber"), "xsd:int", seq as i64);
        b.int(q("ev", EV_NS, "Timestamp"), "xsd:long", clock);
        b.leaf(q("ev", EV_NS, "Publisher"), PUBLISHERS[t]);
        b.int(
            q("ev", EV_NS, "Priority"),
            "xsd:int",
            1 + rng.below(5) as i64,
        );
        b.int(
            q("ev", EV_NS, "TimeToLive"),
            "xsd:int",
            [30_000, 60_000, 300_000][rng.below(3) as usize],
        );
        b.open(q("ev", EV_NS, "Properties"));
        for (k, name) in props.iter().enumerate() {
            let drift = rng.below(41) as i64 - 20;
            let v = &mut state[t][k];
            *v = (*v + drift).max(0);
            let value = *v * if k % 3 == 0 { 1000 } else { 1 };
            b.open(q("ev", EV_NS, "Property"));
            b.attr(q("", "", "name"), *name);
            b.int(
                q("ev", EV_NS, "Value"),
                if value > i32::MAX as i64 {
                    "xsd:long"
                } else {
                    "xsd:int"
                },
                value,
            );
            b.int(q("ev", EV_NS, "Previous"), "xsd:int", value - drift);
            b.int(q("ev", EV_NS, "Minimum"), "xsd:int", value / 2);
            b.int(q("ev", EV_NS, "Maximum"), "xsd:int", value * 2 + 100);
            b.close();
        }
        b.close(); // Properties
        b.close(); // Event
        b.close(); // Notify
        b.close(); // Body
        b.depth -= 1;
        if opts.indent {
            b.ev.push(Event::text("\n"));
        }
        b.ev.push(Event::EndElement);
        b.ev.push(Event::EndDocument);
        out.push(b.ev);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subscribers_at_least_one() {
        let e = NotifyOptions::default().with_subscribers(0).unwrap_err();
        assert_eq!(e.kind(), binxml_core::ErrorKind::InvalidOptions);
        let one = NotifyOptions::default().with_subscribers(1).unwrap();
        assert_eq!(one.subscribers(), 1);
        assert_eq!(messages(3, &one).len(), 3);
    }

    #[test]
    fn deterministic_and_well_formed() {
        let a = messages(20, &NotifyOptions::default());
        let b = messages(20, &NotifyOptions::default());
        assert_eq!(a, b);
        for m in &a {
            let mut c = binxml_core::StreamChecker::new(false);
            for ev in m {
                c.check(binxml_core::Format::Xebu, ev).unwrap();
            }
        }
    }
}
