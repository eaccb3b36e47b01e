//! optlab web app (placeholder).
