//! What crosses the wire: the projection of a state (`view`), the `snap` encoder
//! (`snapshot`), events onto frames (`events`), and the client-side merge of a delta chain
//! (`merge`), which tests, `verify` and socket bots use to read frames back.

pub mod events;
pub mod json;
pub mod merge;
pub mod messages;
pub mod pass;
pub mod snapshot;
pub mod strict;
pub mod view;

pub use pass::PassEncoder;
pub use snapshot::{SnapEncoder, SnapFrame, encode_full};
pub use view::{FrameView, project};
