"""Beyond the lesson: variants that compose with the core Compactor, which imports none of them
(archiving, bounded summaries, compaction in large steps, a size cache for long histories)."""

from .archive import ArchivingCompactor
from .bounded_summary import BoundedSummaryCompactor
from .large_steps import CacheFriendlyCompactor, micro_compact_above
from .size_cache import SizeCache, size_cached

__all__ = ["ArchivingCompactor", "BoundedSummaryCompactor", "CacheFriendlyCompactor", "SizeCache",
           "micro_compact_above", "size_cached"]
