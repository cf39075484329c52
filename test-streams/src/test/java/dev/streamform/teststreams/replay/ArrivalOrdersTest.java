package dev.streamform.teststreams.replay;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import dev.streamform.policies.project.Fixture;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Arrival orders are distinct: a repeat of an order already run adds nothing to compare. */
class ArrivalOrdersTest {
  @Test
  void aFixtureWithFewInterleavingsGetsEachOnceNotRepeats() {
    // one event on each of two partitions: "01" (as written) and "10" are all there are
    Fixture two =
        Fixture.builder("two", "m").event(0, Map.of("k", 1L)).event(1, Map.of("k", 2L)).build();
    List<String> patterns =
        ArrivalOrders.of(two, 6, 11).stream().map(ArrivalOrders.Order::pattern).toList();
    assertThat(patterns, is(List.of("as written", "10")));
  }
}
