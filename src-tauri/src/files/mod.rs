//! Files the page touches: skill images and sounds over the
//! `narratoria-asset:` protocol, and the file dialogs the shell opens itself.

pub mod assets;
pub mod commands;
