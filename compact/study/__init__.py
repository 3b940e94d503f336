"""The long study: a scripted 100-turn session run under each strategy, priced as prompt caching
bills it, and where each planted fact ended up; ``compact.classroom`` shows it."""
