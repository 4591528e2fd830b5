//! The network: packets, topologies and routes.
pub mod packet;
pub mod partition;
pub mod pdq_port;
pub mod topology;
