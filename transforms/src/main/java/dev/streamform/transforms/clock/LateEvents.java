package dev.streamform.transforms.clock;

/** What the source clock does with an event that arrives behind its partition's watermark. */
public enum LateEvents {
  /** Route it to the late output with the watermark it lost to; do not process it. */
  DROP,
  /** Process it like any other event (it is still counted as late-kept). */
  KEEP
}
