//! A download's progress bar on stderr (`indicatif`); hidden when stderr is
//! not a terminal, where a line at the start and the end says enough.

use indicatif::{ProgressBar, ProgressStyle};
use narratoria_models::Progress;

/// The bar of one download.
pub struct DownloadBar {
    bar: ProgressBar,
    name: String,
    announced: bool,
    terminal: bool,
}

impl DownloadBar {
    /// A bar for downloading `name`; nothing shows until the first update.
    pub fn new(name: &str) -> DownloadBar {
        let terminal = crate::terminal::stderr_is_terminal();
        let bar = if terminal {
            ProgressBar::new(0)
        } else {
            ProgressBar::hidden()
        };
        bar.set_style(
            ProgressStyle::with_template(
                "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
            )
            .expect("the template is valid")
            .progress_chars("=> "),
        );
        // The bar draws its message itself, so the name is cleaned here
        // (a catalog's names come from strangers; docs/security.md, "The terminal").
        bar.set_message(format!("Downloading {}", crate::terminal::clean(name)));
        DownloadBar {
            bar,
            name: name.to_string(),
            announced: false,
            terminal,
        }
    }

    /// Shows how far the download is.
    pub fn update(&mut self, p: Progress) {
        if !self.announced {
            self.announced = true;
            if p.resumed_from > 0 {
                self.note(&format!(
                    "resuming the download of {} at {} bytes",
                    self.name, p.resumed_from
                ));
            } else if !self.terminal {
                self.note(&format!("downloading {}", self.name));
            }
        }
        if let Some(total) = p.total {
            self.bar.set_length(total);
        }
        self.bar.set_position(p.done);
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    fn note(&self, text: &str) {
        tracing::info!("{text}");
        self.bar.suspend(|| tell!("narratoria: {text}"));
    }
}
