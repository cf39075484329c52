package dev.streamform.transforms;

import java.io.IOException;
import java.io.OutputStream;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.metrics.Distribution;
import org.apache.beam.sdk.metrics.Metrics;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Measures the keyed state a stage holds, in the pipeline: every {@value #EVERY}th time a stage has
 * written a key's state, it encodes that state with the coders its state cells use and adds the
 * byte count to the distribution {@value StreamformMetrics#STATE_BYTES} (its mean is bytes of state
 * per live key). Sampling keeps the cost to one encoding per {@value #EVERY} writes; a stage
 * instance that never reaches its {@value #EVERY}th write reports nothing.
 *
 * <p>It measures encoded bytes (what a checkpoint or RocksDB stores), not the heap objects of the
 * runner's in-memory backend, which are larger.
 */
public final class StateBytes implements java.io.Serializable {
  /** One sample per this many state writes of one stage instance. */
  public static final int EVERY = 256;

  private final Distribution bytes =
      Metrics.distribution(StreamformMetrics.NAMESPACE, StreamformMetrics.STATE_BYTES);
  private transient int writes;
  private transient @Nullable Counting sink;

  /**
   * True on every {@value #EVERY}th call: the caller then measures its key's state with {@link
   * #add}.
   */
  public boolean due() {
    return ++writes % EVERY == 0;
  }

  /** The encoded size of {@code value} (0 for null), to sum a key's state cells. */
  public <T> long size(Coder<T> coder, @Nullable T value) {
    if (value == null) {
      return 0;
    }
    if (sink == null) {
      sink = new Counting();
    }
    sink.count = 0;
    try {
      coder.encode(value, sink);
    } catch (IOException e) {
      throw new IllegalStateException("StateBytes: " + coder + " failed to encode state", e);
    }
    return sink.count;
  }

  /** Reports one key's state size. */
  public void add(long keyStateBytes) {
    bytes.update(keyStateBytes);
  }

  /** An output stream that only counts. */
  private static final class Counting extends OutputStream {
    long count;

    @Override
    public void write(int b) {
      count++;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      count += len;
    }
  }
}
