package dev.streamform.planner;

import dev.streamform.transforms.BadRecordCoder;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.transforms.errorhandling.ErrorHandler;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The events a model's keyed stage refuses (an int64 sum that would overflow), handed over by the
 * stage's {@code withBadRecordErrorHandler} and kept here while the composite is built, so that
 * they join the model's quarantine instead of a sink registered on the pipeline.
 */
final class RefusedEvents implements ErrorHandler<BadRecord, PCollection<BadRecord>> {
  private static final long serialVersionUID = 1L;

  private final transient List<PCollection<BadRecord>> added = new ArrayList<>();

  @Override
  public void addErrorCollection(PCollection<BadRecord> errors) {
    added.add(errors);
  }

  /** Everything the stage handed over, as one collection. */
  PCollection<BadRecord> all(String name) {
    if (added.size() == 1) {
      return added.get(0);
    }
    return PCollectionList.of(added)
        .apply(name, Flatten.pCollections())
        .setCoder(BadRecordCoder.of());
  }

  @Override
  public boolean isClosed() {
    return false;
  }

  @Override
  public @Nullable PCollection<BadRecord> getOutput() {
    return null;
  }

  @Override
  public void close() {}
}
