//! The space-time IR: layouts, operators, type checker, cycle simulator, latency and area.
