//! Host side of a TCP stream: listening, accepting and vectored reads.
