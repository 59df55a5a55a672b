//! Skill scripts never outlive the host. Each script runs as its own process
//! group; the groups alive at any moment are listed here, so that the host
//! can kill them all when it is told to stop (SIGINT, SIGTERM). When the host
//! dies without warning (SIGKILL, a crash), the kernel kills each script
//! itself (Linux: the parent-death signal). See docs/security.md,
//! "Processes and data", for what this does not cover.

use std::sync::atomic::{AtomicI32, Ordering};

/// How many process groups can be listed at once; a plan's concurrency is
/// far below this. A group that finds no free slot is still killed by its
/// runner and by the parent-death signal, just not by [`kill_all`].
const SLOTS: usize = 4096;

/// Live process-group ids; 0 marks a free slot. Plain atomics, so that a
/// signal handler may read them.
static LIVE: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];

/// Keeps a process group listed as live until dropped.
#[derive(Debug)]
pub struct Listed {
    slot: Option<usize>,
}

impl Drop for Listed {
    fn drop(&mut self) {
        if let Some(slot) = self.slot {
            LIVE[slot].store(0, Ordering::SeqCst);
        }
    }
}

/// Lists process group `pgid` as live until the returned guard is dropped.
pub fn list(pgid: i32) -> Listed {
    if pgid <= 1 {
        return Listed { slot: None };
    }
    let slot = LIVE.iter().position(|s| {
        s.compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    });
    Listed { slot }
}

/// The process groups listed as live right now.
pub fn live() -> Vec<i32> {
    LIVE.iter()
        .map(|s| s.load(Ordering::SeqCst))
        .filter(|&p| p > 1)
        .collect()
}

/// Sends SIGKILL to every live process group. Async-signal-safe: it only
/// reads atomics and calls `killpg`.
#[allow(unsafe_code)]
pub fn kill_all() {
    #[cfg(unix)]
    for slot in LIVE.iter() {
        let pgid = slot.load(Ordering::SeqCst);
        if pgid > 1 {
            // SAFETY: killpg only sends a signal; the group was created by
            // the runner for a script, and a group that is gone gives ESRCH.
            unsafe {
                libc::killpg(pgid, libc::SIGKILL);
            }
        }
    }
}

/// Makes SIGINT, SIGTERM and SIGHUP kill every live script's process group
/// before the host ends as it would have without this (by the same signal).
/// For programs that have no handler of their own for these signals.
#[allow(unsafe_code)]
pub fn kill_all_on_termination_signals() {
    #[cfg(unix)]
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: installs a handler that calls only async-signal-safe
        // functions (atomic loads, killpg, signal, raise); the struct is
        // fully initialised before use.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_termination_signal as *const () as libc::sighandler_t;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// Gives SIGINT back to the program: from now on it neither ends the host
/// nor kills the scripts by itself, so a program that listens for it (with
/// tokio's `signal::ctrl_c`) decides what Ctrl-C does. SIGTERM and SIGHUP
/// keep what [`kill_all_on_termination_signals`] made of them.
#[allow(unsafe_code)]
pub fn leave_interrupts_to_the_program() {
    #[cfg(unix)]
    // SAFETY: restores the default action of one signal; no handler runs.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
    }
}

#[cfg(unix)]
#[allow(unsafe_code)]
extern "C" fn on_termination_signal(signal: libc::c_int) {
    kill_all();
    // SAFETY: restores the default action and re-sends the signal, so the
    // host ends exactly as it would have without the handler.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

/// Makes the script started by `cmd` receive SIGKILL when the host dies
/// (Linux only; elsewhere nothing changes). The kernel sends it when the
/// *thread* that started the script ends, so scripts must be started from
/// threads that live as long as the host's runtime (tokio's worker threads
/// and the thread that drives `block_on` do; a short-lived thread must not).
#[allow(unsafe_code)]
pub fn die_with_host(cmd: &mut tokio::process::Command) {
    #[cfg(target_os = "linux")]
    {
        let host = std::process::id() as libc::pid_t;
        // SAFETY: the closure runs in the forked child before exec and calls
        // only async-signal-safe functions (prctl, getppid).
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The host may have died before the request took effect.
                if libc::getppid() != host {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cmd;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listed_group_is_live_until_its_guard_drops() {
        let guard = list(999_999_001);
        assert!(live().contains(&999_999_001));
        drop(guard);
        assert!(!live().contains(&999_999_001));
        let none = list(1);
        assert!(none.slot.is_none());
    }

    /// The script dies when the thread that started it ends, as it does
    /// when the whole host dies.
    #[cfg(target_os = "linux")]
    #[test]
    #[allow(unsafe_code)]
    fn a_script_dies_with_the_thread_that_started_it() {
        let pid = std::thread::spawn(|| {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                let mut cmd = tokio::process::Command::new("sleep");
                cmd.arg("30").process_group(0);
                die_with_host(&mut cmd);
                let child = cmd.spawn().unwrap();
                let pid = child.id().unwrap();
                std::mem::forget(child);
                pid
            })
        })
        .join()
        .unwrap();
        let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let gone = || {
            // SAFETY: waitpid on our own child only reaps it.
            let rc = unsafe { libc::waitpid(pid as i32, std::ptr::null_mut(), libc::WNOHANG) };
            rc == pid as i32 || rc == -1
        };
        while !gone() {
            assert!(
                std::time::Instant::now() < until,
                "sleep {pid} outlived its thread"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}
