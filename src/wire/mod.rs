//! What crosses the wire: the protocol's messages and tables (`messages`), the projection
//! of a state (`view`), the `snap` encoder (`snapshot`) and one audience's chain of passes
//! (`pass`), events onto frames (`events`), a level's layout for drawing (`layout`), and the
//! client-side merge of a delta chain (`merge`), which tests, `verify` and socket bots use
//! to read frames back.

pub mod events;
pub mod json;
pub mod layout;
pub mod merge;
pub mod messages;
pub mod pass;
pub mod snapshot;
pub mod strict;
pub mod view;

pub use pass::PassEncoder;
pub use snapshot::{SnapEncoder, SnapFrame, encode_full};
pub use view::{FrameView, project};
