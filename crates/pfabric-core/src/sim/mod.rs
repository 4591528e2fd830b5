//! The discrete-event machinery: time, the event queue and random streams. Nothing here knows about networks.
pub mod event;
pub mod rng;
pub mod time;
