package dev.streamform.teststreams.replay;

import dev.streamform.policies.project.Fixture;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Arrival orders of a fixture's items that keep each partition's own order: the same per-partition
 * logs (the same items at the same offsets), interleaved differently. Order 1 is the fixture as
 * written; each further order is a uniformly random interleaving of the partitions' logs, a
 * function of the seed. A watermark item without a partition is one punctuation on each partition's
 * log, so it becomes one per-partition item in the other orders.
 */
public final class ArrivalOrders {
  private ArrivalOrders() {}

  private static void add(Fixture.Builder b, Fixture.Given g, int partition) {
    if (g.event().isPresent()) {
      b.event(partition, g.event().get());
    } else {
      b.watermark(Optional.of(partition), g.watermark().get());
    }
  }

  /** One arrival order: the fixture to run and the partitions in the order their items come. */
  public record Order(int number, Fixture fixture, String pattern) {}

  public static List<Order> of(Fixture fixture, int count, long seed) {
    return of(fixture, count, seed, false);
  }

  /**
   * The partitions of {@code fixture}'s logs: those its items name (a watermark item without
   * partition names none). With fewer than two, {@code delayedPartitions} adds no order.
   */
  public static TreeSet<Integer> partitionsOf(Fixture fixture) {
    TreeSet<Integer> partitions = new TreeSet<>();
    fixture.given().stream()
        .filter(g -> !g.allPartitions())
        .forEach(g -> partitions.add(g.partition()));
    return partitions;
  }

  /**
   * As {@link #of(Fixture, int, long)}, and with {@code delayedPartitions} one more order per
   * partition in which that partition delivers nothing until every other partition has delivered
   * everything (a partition that was down, then catches up).
   */
  /** How many draws may repeat orders already had before the fixture is taken to have no more. */
  private static final int DRAWS = 200;

  /** A uniformly random interleaving of the partitions' {@code logs}, as order {@code n}. */
  private static Order draw(
      Fixture fixture, Map<Integer, List<Fixture.Given>> logs, Random random, int n) {
    Map<Integer, Deque<Fixture.Given>> left = new TreeMap<>();
    logs.forEach((p, items) -> left.put(p, new ArrayDeque<>(items)));
    Fixture.Builder b = Fixture.builder(fixture.name() + "-order" + n, fixture.model());
    StringBuilder pattern = new StringBuilder();
    int remaining = logs.values().stream().mapToInt(List::size).sum();
    while (remaining > 0) {
      int pick = random.nextInt(remaining); // uniform over interleavings: weighted by what is left
      int partition = -1;
      for (Map.Entry<Integer, Deque<Fixture.Given>> e : left.entrySet()) {
        if (pick < e.getValue().size()) {
          partition = e.getKey();
          break;
        }
        pick -= e.getValue().size();
      }
      add(b, left.get(partition).poll(), partition);
      pattern.append(partition);
      remaining--;
    }
    return new Order(n, b.build(), pattern.toString());
  }

  public static List<Order> of(Fixture fixture, int count, long seed, boolean delayedPartitions) {
    TreeSet<Integer> partitions = partitionsOf(fixture);
    Map<Integer, List<Fixture.Given>> logs = new TreeMap<>();
    partitions.forEach(p -> logs.put(p, new ArrayList<>()));
    for (Fixture.Given g : fixture.given()) {
      if (g.allPartitions()) {
        partitions.forEach(p -> logs.get(p).add(g));
      } else {
        logs.get(g.partition()).add(g);
      }
    }
    List<Order> orders = new ArrayList<>();
    orders.add(new Order(1, fixture, "as written"));
    // each interleaving once: as written (a watermark item on every partition, each in turn), then
    // what the seed draws; a repeat is drawn again, and when none is new after many draws, the
    // fixture has no more (two partitions of one item each have two)
    java.util.Set<String> seen = new java.util.HashSet<>();
    StringBuilder written = new StringBuilder();
    for (Fixture.Given g : fixture.given()) {
      for (int p : g.allPartitions() ? partitions : java.util.Set.of(g.partition())) {
        written.append(p);
      }
    }
    seen.add(written.toString());
    Random random = new Random(seed);
    for (int n = 2; n <= count; n++) {
      Order drawn = null;
      for (int tries = 0; tries < DRAWS && drawn == null; tries++) {
        Order o = draw(fixture, logs, random, n);
        if (seen.add(o.pattern())) {
          drawn = o;
        }
      }
      if (drawn == null) {
        break;
      }
      orders.add(drawn);
    }
    if (delayedPartitions && partitions.size() > 1) {
      for (int delayed : partitions) {
        int n = orders.size() + 1;
        Fixture.Builder b = Fixture.builder(fixture.name() + "-order" + n, fixture.model());
        StringBuilder pattern = new StringBuilder();
        // the others as written (each all-partition watermark item on each of them), then the
        // delayed one
        for (Fixture.Given g : fixture.given()) {
          for (int p : g.allPartitions() ? partitions : java.util.Set.of(g.partition())) {
            if (p != delayed) {
              add(b, g, p);
              pattern.append(p);
            }
          }
        }
        for (Fixture.Given g : logs.get(delayed)) {
          add(b, g, delayed);
          pattern.append(delayed);
        }
        orders.add(new Order(n, b.build(), pattern + ", partition " + delayed + " delayed"));
      }
    }
    return orders;
  }
}
