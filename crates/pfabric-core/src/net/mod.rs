//! The network: packets, topologies and routes.
pub mod packet;
pub mod topology;
