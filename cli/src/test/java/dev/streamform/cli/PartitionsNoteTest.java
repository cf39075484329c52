package dev.streamform.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A --partitions N that did not size every topic of a run (the source declares no count) is said,
 * not silently moot (found by a read-only audit of the operator path: N was ignored when the topics
 * existed).
 */
class PartitionsNoteTest {
  @Test
  void everyTopicExistingWithAnotherCountIsSaid() {
    assertThat(
        RunCommand.partitionsNote(6, "orders", 3, List.of()),
        is(
            Optional.of(
                "streamform run: note: --partitions 6 created no topic: every topic of the run"
                    + " exists, and the source topic orders has 3 partitions, read as it is (a"
                    + " topic's partition count is changed with Kafka's own tools; declare"
                    + " partitions: on the source to have run hold it)")));
  }

  @Test
  void outputsCreatedBesideAnExistingSourceOfAnotherCountAreNamed() {
    assertThat(
        RunCommand.partitionsNote(6, "orders", 1, List.of("totals", "totals.late")).orElseThrow(),
        is(
            "streamform run: note: --partitions 6 sized only the topics this run created (totals,"
                + " totals.late), and the source topic orders has 1 partition, read as it is (a"
                + " topic's partition count is changed with Kafka's own tools; declare partitions:"
                + " on the source to have run hold it)"));
  }

  @Test
  void nothingIsSaidWhenNSizedTheSourceOrAgreesWithIt() {
    assertThat(RunCommand.partitionsNote(6, "orders", -1, List.of("orders")), is(Optional.empty()));
    assertThat(RunCommand.partitionsNote(3, "orders", 3, List.of()), is(Optional.empty()));
  }
}
