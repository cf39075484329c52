package dev.streamform.transforms;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.is;

import dev.streamform.transforms.changelog.Aggregation;
import dev.streamform.transforms.clock.ClockResult;
import dev.streamform.transforms.envelope.SourceRecord;
import dev.streamform.transforms.envelope.SourceRecordCoder;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import dev.streamform.transforms.extraction.ExtractionResult;
import dev.streamform.transforms.windows.WindowedAggregate;
import dev.streamform.transforms.windows.WindowedResult;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.values.POutput;
import org.apache.beam.sdk.values.PValue;
import org.apache.beam.sdk.values.TupleTag;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The outputs of the clock, the extraction and the windows are named, as the duplicate detection's
 * and the decisions' are: a Beam author (and a runner's UI) sees {@code late} and {@code
 * quarantined}, not {@code out1}, and an output's name does not change with an edit to the source
 * (found by a read-only audit of a Java client: the tags' ids held a source line number).
 */
class NamedOutputsTest {

  private static List<String> tags(POutput result) {
    return result.expand().keySet().stream().map(TupleTag::getId).collect(Collectors.toList());
  }

  private static List<String> names(POutput result) {
    return result.expand().values().stream().map(PValue::getName).collect(Collectors.toList());
  }

  @Test
  void theClockTheExtractionAndTheWindowsNameTheirOutputs() {
    Pipeline p = Pipeline.create();
    ExtractionResult extracted =
        p.apply(Create.<SourceRecord>empty(SourceRecordCoder.of(SeedStreams.ORDERS)))
            .apply("Extract", EventTimeExtraction.from("ordered_at"));
    ClockResult clocked = extracted.events().apply("Clock", HandOverTest.clock());
    WindowedResult windows =
        clocked
            .events()
            .apply(
                "Windows",
                WindowedAggregate.of(FixedWindows.of(Duration.standardHours(1)))
                    .by("customer_id")
                    .aggregating(Aggregation.sum("amount").as("revenue")));

    assertThat(tags(extracted), containsInAnyOrder("events", "quarantined"));
    assertThat(tags(clocked), containsInAnyOrder("events", "late", "idle_markers"));
    assertThat(tags(windows), containsInAnyOrder("revisions", "too_late"));
    assertThat(names(clocked).stream().anyMatch(n -> n.endsWith(".late")), is(true));
    Map<TupleTag<?>, PValue> out = windows.expand();
    assertThat(out.size(), is(2));
  }
}
