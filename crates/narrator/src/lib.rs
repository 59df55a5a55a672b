//! The in-process llama.cpp planner.
