package dev.streamform.teststreams.trace;

import dev.streamform.policies.project.Fixture;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A trace's per-partition logs delivered in another order. Each partition keeps its own items in
 * their order (a watermark item for every partition becomes one item in each partition's log); only
 * which partition delivers next changes. By docs/semantics.md §7 the per-key changelog and the late
 * events must not change with it.
 */
public final class Interleavings {
  private Interleavings() {}

  /** {@code trace}'s partition logs, merged in an order drawn from {@code seed}. */
  public static Fixture of(Fixture trace, long seed) {
    TreeSet<Integer> partitions = new TreeSet<>(List.of(0));
    trace.given().forEach(g -> partitions.add(g.partition()));
    Map<Integer, List<Fixture.Given>> logs = new TreeMap<>();
    partitions.forEach(p -> logs.put(p, new ArrayList<>()));
    for (Fixture.Given g : trace.given()) {
      for (int p : g.allPartitions() ? partitions : List.of(g.partition())) {
        logs.get(p).add(g);
      }
    }
    Random random = new Random(seed);
    List<Integer> open = new ArrayList<>();
    logs.forEach(
        (p, log) -> {
          if (!log.isEmpty()) {
            open.add(p);
          }
        });
    Map<Integer, Integer> next = new TreeMap<>();
    Fixture.Builder b = Fixture.builder(trace.name() + "-order" + seed, trace.model());
    while (!open.isEmpty()) {
      int i = random.nextInt(open.size());
      int p = open.get(i);
      int n = next.merge(p, 1, Integer::sum) - 1;
      Fixture.Given g = logs.get(p).get(n);
      if (g.event().isPresent()) {
        b.event(p, g.event().get());
      } else {
        b.watermark(Optional.of(p), g.watermark().get());
      }
      if (n + 1 == logs.get(p).size()) {
        open.remove(i);
      }
    }
    return b.build();
  }
}
