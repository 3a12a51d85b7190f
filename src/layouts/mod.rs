//! layouts
