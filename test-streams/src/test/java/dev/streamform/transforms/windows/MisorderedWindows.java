package dev.streamform.transforms.windows;

import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.clock.TimedEvent;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.transforms.errorhandling.BadRecord;
import org.apache.beam.sdk.transforms.errorhandling.ErrorHandler;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;

/**
 * A planted defect, test code only: the real {@link WindowedAggregate}, whose records of each key's
 * window then leave with revision 2 before revision 1 — values, numbers and identity untouched,
 * only the order of emission wrong, and each record numbered ({@link WindowRevision#emission()}) as
 * this stage emits it. What a sink that applies revisions in arrival order would see as a gap. (In
 * this package only to build a {@link WindowedResult}; nothing in production code can switch it
 * on.)
 */
public final class MisorderedWindows extends WindowedAggregate {
  private final WindowedAggregate real;

  public MisorderedWindows(WindowedAggregate real) {
    this.real = real;
  }

  @Override
  public WindowedResult expand(PCollection<TimedEvent> input) {
    WindowedResult result = input.apply("Real", real);
    Coder<WindowRevision> coder = result.revisions().getCoder();
    PCollection<WindowRevision> misordered =
        result
            .revisions()
            .apply(
                "ByWindow",
                WithKeys.of((WindowRevision r) -> r.logicalWindowId())
                    .withKeyType(TypeDescriptors.strings()))
            .setCoder(KvCoder.of(StringUtf8Coder.of(), coder))
            .apply("Revision2First", ParDo.of(new Revision2First(coder)))
            .setCoder(coder);
    return new WindowedResult(
        input.getPipeline(),
        new TupleTag<>("revisions"),
        misordered,
        new TupleTag<>("tooLate"),
        result.tooLate());
  }

  /** Holds a window's records to the end of input, then emits them with 1 and 2 swapped. */
  private static final class Revision2First
      extends DoFn<KV<String, WindowRevision>, WindowRevision> {
    @StateId("records")
    private final StateSpec<BagState<WindowRevision>> recordsSpec;

    @TimerId("flush")
    private final TimerSpec flushSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    Revision2First(Coder<WindowRevision> coder) {
      this.recordsSpec = StateSpecs.bag(coder);
    }

    @ProcessElement
    public void process(
        @Element KV<String, WindowRevision> record,
        @StateId("records") BagState<WindowRevision> records,
        @TimerId("flush") Timer flush) {
      records.add(record.getValue());
      flush.set(GlobalWindow.INSTANCE.maxTimestamp());
    }

    @OnTimer("flush")
    public void flush(
        @StateId("records") BagState<WindowRevision> records, OutputReceiver<WindowRevision> out) {
      List<WindowRevision> list = new ArrayList<>();
      records.read().forEach(list::add);
      list.sort(Comparator.comparingLong(WindowRevision::emission)); // as the real stage emitted
      int first = -1;
      int second = -1;
      for (int i = 0; i < list.size(); i++) {
        if (list.get(i).isRevision() && list.get(i).revision() == 1) {
          first = i;
        } else if (list.get(i).isRevision() && list.get(i).revision() == 2) {
          second = i;
        }
      }
      if (first >= 0 && second >= 0) {
        WindowRevision one = list.get(first);
        list.set(first, list.get(second));
        list.set(second, one);
      }
      long emission = 0;
      for (WindowRevision r : list) {
        out.output(r.toBuilder().setEmission(++emission).build());
      }
      records.clear();
    }
  }

  @Override
  public long sizeMillis() {
    return real.sizeMillis();
  }

  @Override
  public long everyMillis() {
    return real.everyMillis();
  }

  @Override
  public long offsetMillis() {
    return real.offsetMillis();
  }

  @Override
  public @Nullable CalendarWindow calendar() {
    return real.calendar();
  }

  @Override
  public String model() {
    return real.model();
  }

  @Override
  public List<String> keyColumns() {
    return real.keyColumns();
  }

  @Override
  public Map<String, String> keyNames() {
    return real.keyNames();
  }

  @Override
  public List<Aggregation> aggregations() {
    return real.aggregations();
  }

  @Override
  public Duration allowedLateness() {
    return real.allowedLateness();
  }

  @Override
  public int earlyEveryEvents() {
    return real.earlyEveryEvents();
  }

  @Override
  public @Nullable Duration earlyEveryInterval() {
    return real.earlyEveryInterval();
  }

  @Override
  public int generation() {
    return real.generation();
  }

  @Override
  public @Nullable ErrorHandler<BadRecord, ?> badRecordErrorHandler() {
    return real.badRecordErrorHandler();
  }

  @Override
  public boolean arrivalOrder() {
    return real.arrivalOrder();
  }

  @Override
  public org.apache.beam.sdk.schemas.@Nullable Schema recordSchema() {
    return real.recordSchema();
  }

  @Override
  Builder toBuilder() {
    return real.toBuilder();
  }
}
