"""Beyond the lesson: variants that compose with the core Compactor, which imports none of them.

``ArchivingCompactor`` (nothing removed is lost: v8's lossless snip and micro),
``BoundedSummaryCompactor`` (merged summaries under a cap), ``CacheFriendlyCompactor``
(compaction in rare large steps, for prompt caching), ``micro_compact_above`` (a stage that
waits for a trigger, like the API's context editing) and ``SizeCache`` (a measuring object
that remembers messages, so a turn on a long history costs only what is new; ``size_cached``
gives a compactor one).
"""

from .archive import ArchivingCompactor
from .bounded_summary import BoundedSummaryCompactor
from .large_steps import CacheFriendlyCompactor, micro_compact_above
from .size_cache import SizeCache, size_cached

__all__ = ["ArchivingCompactor", "BoundedSummaryCompactor", "CacheFriendlyCompactor", "SizeCache",
           "micro_compact_above", "size_cached"]
