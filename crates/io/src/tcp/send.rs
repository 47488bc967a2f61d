//! Camera side of a TCP stream: connecting and vectored, record-aligned sends.
