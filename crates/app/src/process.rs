//! Process-level set-up for programs that host the narrator.

/// llama.cpp's OpenMP threads spin while they wait by default, which starves
/// everything else on a small machine (decoding fell from ≈ 19 to 1–2 tokens/s
/// under load). The OpenMP runtime reads its wait policy once, when the process
/// starts, so a program that hosts the narrator calls this first thing in `main`: it
/// restarts the process with a passive policy unless one is set.
#[cfg(all(unix, feature = "llama"))]
pub fn calm_openmp() {
    use std::os::unix::process::CommandExt;
    if std::env::var_os("OMP_WAIT_POLICY").is_some() {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let err = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env("OMP_WAIT_POLICY", "passive")
        .exec();
    // exec only returns on failure: carry on as we are.
    eprintln!("narratoria: note: could not restart with a passive OpenMP wait policy: {err}");
}

#[cfg(not(all(unix, feature = "llama")))]
pub fn calm_openmp() {}
