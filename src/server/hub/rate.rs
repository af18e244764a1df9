//! Requests per token per minute: a sliding window of the last minute's request times, so a
//! burst at the turn of a minute cannot send twice the limit. The window is kept in the hub's
//! store ([`HubTokens::admit_request`](crate::store::HubTokens::admit_request)), so that
//! several hub processes on one database hold one limit between them.

/// Requests each token may make per minute, as the hub documents.
pub const PER_MINUTE: usize = 60;
