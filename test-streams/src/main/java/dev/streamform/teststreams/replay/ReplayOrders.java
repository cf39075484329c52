package dev.streamform.teststreams.replay;

import dev.streamform.core.text.Counts;
import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.teststreams.fixture.Delivery;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.teststreams.fixture.SavepointRestore;
import dev.streamform.transforms.Times;
import dev.streamform.transforms.decisions.FeatureContract;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Replays a scoring model's fixture in several arrival orders ({@link ArrivalOrders}) and compares
 * every order's decisions and final feature state with order 1's, decision by decision, then says
 * whether the model's feature contract permits what differed:
 *
 * <ul>
 *   <li>{@code as_of_occurrence}: nothing may differ;
 *   <li>{@code latest_available}: a decision's features, score, state revision, cutoff, scoring
 *       time and id (and so the ids revisions name) may differ, and the order in which a key's
 *       events were applied; the events decided, their routes and revisions, the dead letters and
 *       the set of events in each key's final state may not.
 * </ul>
 */
public final class ReplayOrders {
  private static final List<String> PERMITTED_LATEST =
      List.of(
          "score",
          "features",
          "state_revision",
          "state_cutoff",
          "scored_at",
          "decision_id",
          "supersedes",
          "affected_decisions");

  /**
   * A restore point outside the fixture: {@code --restore-at} must leave at least one event before
   * and one after it. The message names the value and the range of valid ones.
   */
  public static final class RestorePointOutOfRange extends IllegalArgumentException {
    RestorePointOutOfRange(String message) {
      super(message);
    }
  }

  /** What a replay found: {@code runs} compared with order 1 (every order, then the restores). */
  public record Result(int runs, int differingRuns, int differences, boolean permitted) {}

  /**
   * What to replay: {@code orders} arrival orders from {@code seed}; with {@code delayedPartitions}
   * one more per partition, delivering last; with {@code duplicates} every order carries the
   * fixture's {@link Repeats}; with {@code restoreAt} N &gt; 0 every order is also run stopped with
   * a savepoint after N events and restored from it ({@link SavepointRestore}).
   */
  public record Options(
      int orders, long seed, boolean delayedPartitions, boolean duplicates, int restoreAt) {

    public static Options orders(int orders, long seed) {
      return new Options(orders, seed, false, false, 0);
    }

    public Options withDelayedPartitions(boolean delayed) {
      return new Options(orders, seed, delayed, duplicates, restoreAt);
    }

    public Options withDuplicates(boolean repeats) {
      return new Options(orders, seed, delayedPartitions, repeats, restoreAt);
    }

    public Options withRestoreAt(int events) {
      return new Options(orders, seed, delayedPartitions, duplicates, events);
    }
  }

  private ReplayOrders() {}

  public static Result run(
      DeclaredModel model,
      Fixture fixture,
      int count,
      long seed,
      FixtureRunner runner,
      PrintWriter out) {
    return run(model, fixture, Options.orders(count, seed), runner, out);
  }

  /**
   * With {@code delayedPartitions}: one more order per partition, that partition delivering last.
   */
  public static Result run(
      DeclaredModel model,
      Fixture fixture,
      int count,
      long seed,
      boolean delayedPartitions,
      FixtureRunner runner,
      PrintWriter out) {
    return run(
        model,
        fixture,
        Options.orders(count, seed).withDelayedPartitions(delayedPartitions),
        runner,
        out);
  }

  /**
   * Replays {@code fixture} as {@code options} say and prints every run's differences from order 1
   * and every repeat that made a decision.
   *
   * @throws IllegalArgumentException for duplicates without a declared {@code event_id}
   * @throws RestorePointOutOfRange for a restore point that leaves no event after it
   */
  public static Result run(
      DeclaredModel model,
      Fixture fixture,
      Options options,
      FixtureRunner runner,
      PrintWriter out) {
    FeatureContract contract = model.scoreEvents().contract();
    String cut = options.restoreAt() > 0 ? "the restore" : "the middle";
    Repeats.Plan plan = null;
    String given = fixture.name(); // as the command line named it, before the repeats
    if (options.duplicates()) {
      plan = Repeats.add(fixture, model.declaredSource(), options.restoreAt());
      fixture = plan.fixture();
    }
    long events = fixture.given().stream().filter(g -> g.event().isPresent()).count();
    if (options.restoreAt() > 0 && options.restoreAt() >= events) {
      String has =
          "fixture "
              + given
              + " has "
              + Counts.of(events, "event")
              + (plan == null ? "" : " with its repeats");
      throw new RestorePointOutOfRange(
          "--restore-at "
              + options.restoreAt()
              + " is past the end: "
              + has
              + (events < 2
                  ? ", and a restore needs one event before the savepoint and one after it"
                  : "; give 1 to " + (events - 1) + ", so that an event comes after the restore"));
    }
    List<ArrivalOrders.Order> orders =
        ArrivalOrders.of(fixture, options.orders(), options.seed(), options.delayedPartitions());
    out.printf(
        "replay-orders: model %s (%s), fixture %s, %s on %s, seed %d%n",
        model.model().name(),
        contract.declared(),
        fixture.name(),
        Counts.of(orders.size(), "arrival order"),
        runner.runner().describe(),
        options.seed());
    long interleavings = orders.stream().filter(o -> !o.pattern().endsWith(" delayed")).count();
    if (interleavings < options.orders()) {
      // each order is a distinct interleaving: a short fixture has fewer than asked
      out.printf(
          "fixture %s has %s of its partitions' logs: %d asked, each run once%n",
          fixture.name(), Counts.of(interleavings, "distinct arrival order"), options.orders());
    }
    java.util.TreeSet<Integer> partitions = ArrivalOrders.partitionsOf(fixture);
    if (options.delayedPartitions() && partitions.size() < 2) {
      // one order per partition that delivers after every other: with one, there is no other
      out.printf(
          "--delayed-partition: fixture %s has %s: no delayed order to add%n",
          given,
          partitions.isEmpty() ? "no partition" : "one partition (" + partitions.first() + ")");
    }
    if (plan != null) {
      out.printf(
          "repeats by event_id `%s` (duplicates_within %s), on their original's partition in"
              + " every order:%n",
          model.declaredSource().deduplicate().get().idColumn(),
          Times.format(model.declaredSource().deduplicate().get().horizon()));
      for (Repeats.Repeat r : plan.repeats()) {
        out.println("  " + r.describe(cut));
      }
      plan.skipped().forEach(s -> out.println("  none: " + s));
    }
    List<FixtureOutcome> outcomes = new ArrayList<>();
    if (runner.runner().isFlink()) {
      List<FixtureRunner.Case> cases = new ArrayList<>();
      orders.forEach(o -> cases.add(FixtureRunner.Case.of(model, o.fixture())));
      outcomes.addAll(runner.runTogether(cases)); // one Flink job for every order
    } else {
      // one element per TestStream step: a batch would let the runner reorder the very arrival
      // order being replayed (under latest_available, decisions then varied from run to run)
      FixtureRunner inOrder = runner.delivering(Delivery.oneElementPerBatch());
      orders.forEach(o -> outcomes.add(inOrder.run(model, o.fixture())));
    }
    List<String> labels = new ArrayList<>();
    orders.forEach(o -> labels.add("order " + o.number() + " (" + o.pattern() + ")"));
    if (options.restoreAt() > 0) {
      // the DirectRunner has no savepoints: the restores run on Flink in this JVM (ADR 0041)
      int parallelism = runner.runner().isFlink() ? runner.runner().parallelism() : 1;
      out.printf(
          "restore: every order stopped with a savepoint after %s and restored from it,"
              + " on embedded Flink (an in-process cluster) parallelism %d%s%n",
          Counts.of(options.restoreAt(), "event"),
          parallelism,
          runner.runner().isFlink() ? "" : " (the DirectRunner has no savepoints)");
      List<FixtureRunner.Case> cases = new ArrayList<>();
      orders.forEach(o -> cases.add(FixtureRunner.Case.of(model, o.fixture())));
      SavepointRestore.Result restored =
          SavepointRestore.run(cases, options.restoreAt(), parallelism);
      outcomes.addAll(restored.outcomes());
      orders.forEach(
          o ->
              labels.add(
                  "order "
                      + o.number()
                      + " restored after "
                      + Counts.of(options.restoreAt(), "event")));
    }
    Map<String, Map<String, String>> reference = ledger(outcomes.get(0));
    int differing = 0;
    int differences = 0;
    boolean permitted = true;
    for (int i = 0; i < outcomes.size(); i++) {
      Map<String, Map<String, String>> ledger = ledger(outcomes.get(i));
      List<String> lines = new ArrayList<>();
      boolean runPermitted = true;
      TreeSet<String> keys = new TreeSet<>(reference.keySet());
      keys.addAll(ledger.keySet());
      for (String k : keys) {
        Map<String, String> want = reference.get(k);
        Map<String, String> got = ledger.get(k);
        if (want == null || got == null) {
          lines.add(
              "  "
                  + k
                  + ": "
                  + (want == null ? "only in this run" : "missing in this run")
                  + " — not permitted: every run decides the same events with the same routes");
          runPermitted = false;
          continue;
        }
        for (String field : want.keySet()) {
          if (!Objects.equals(want.get(field), got.get(field))) {
            boolean ok = contract == FeatureContract.LATEST_AVAILABLE && permittedLatest(field);
            runPermitted &= ok;
            lines.add(
                "  "
                    + k
                    + ": "
                    + field
                    + " "
                    + want.get(field)
                    + " -> "
                    + got.get(field)
                    + (ok ? "" : "   (not permitted)"));
          }
        }
      }
      List<String> wrong = plan == null ? List.of() : judgeRepeats(plan, outcomes.get(i), cut);
      runPermitted &= wrong.isEmpty();
      String header =
          labels.get(i)
              + ": "
              + (lines.isEmpty()
                  ? "identical to order 1"
                  : Counts.of(lines.size(), "difference") + " from order 1")
              + (wrong.isEmpty()
                  ? ""
                  : "; " + Counts.of(wrong.size(), "repeat") + " not as the contract says");
      out.println(header);
      lines.forEach(out::println);
      wrong.forEach(out::println);
      if (!lines.isEmpty() || !wrong.isEmpty()) {
        differing++;
        differences += lines.size() + wrong.size();
        permitted &= runPermitted;
      }
    }
    FixtureOutcome first = outcomes.get(0);
    out.printf(
        "%s: %s, %d revised, %d dead-lettered per order; final feature state of %s%n",
        Counts.of(orders.size(), "order"),
        Counts.of(first.routed("scored") + first.routed("revised"), "decision"),
        first.routed("revised"),
        first.routed("dead_lettered"),
        Counts.of(first.finalState.size(), "key"));
    first.finalState.forEach((k, v) -> out.println("  key " + k + ": " + v));
    String runs = outcomes.size() == orders.size() ? "orders" : "runs";
    if (plan != null && permitted) {
      out.printf(
          "repeats: in every %s, no repeat made a decision — each exact repeat dropped as a"
              + " duplicate, each conflict dead-lettered with its reason%n",
          runs.equals("orders") ? "order" : "run");
    }
    if (differing == 0) {
      out.println(
          "identical decisions and final feature state in every "
              + (runs.equals("orders") ? "order" : "run")
              + (contract == FeatureContract.LATEST_AVAILABLE
                  ? " — more than latest_available requires (it would let what a decision read"
                      + " depend on arrival order)"
                  : " — as " + contract.declared() + " requires"));
    } else if (permitted) {
      out.println(
          differing
              + " of "
              + outcomes.size()
              + " "
              + runs
              + (differing == 1 ? " differs" : " differ")
              + " from order 1 ("
              + Counts.of(differences, "difference")
              + "): permitted by latest_available — the same events decided with the"
              + " same routes; what they read depended on arrival order");
    } else {
      out.println(
          differing
              + " of "
              + outcomes.size()
              + " "
              + runs
              + (differing == 1 ? " differs" : " differ")
              + " from order 1 ("
              + Counts.of(differences, "difference")
              + "): NOT permitted by "
              + contract.declared());
    }
    out.flush();
    return new Result(outcomes.size(), differing, differences, permitted);
  }

  /**
   * What each repeat got in {@code outcome}, where the contract is broken: an exact repeat must be
   * dropped as a duplicate with no routed row, a conflict routed {@code dead_lettered} as an
   * event_id conflict and nothing else, and neither may be in any key's final feature state.
   */
  static List<String> judgeRepeats(Repeats.Plan plan, FixtureOutcome outcome, String cut) {
    List<String> wrong = new ArrayList<>();
    Set<String> dropped = new HashSet<>();
    outcome.duplicates.forEach(d -> dropped.add(d.eventId));
    for (Repeats.Repeat r : plan.repeats()) {
      List<String> routes = new ArrayList<>();
      for (FixtureOutcome.Routed row : outcome.routed) {
        if (row.eventId().equals(r.repeatId())) {
          routes.add(
              row.route()
                  + (row.score() == null ? "" : " r" + row.revision())
                  + (row.identity().containsKey("reason")
                      ? " (" + row.identity().get("reason") + ")"
                      : ""));
        }
      }
      String problem = null;
      if (r.kind() == Repeats.Kind.EXACT) {
        if (!routes.isEmpty()) {
          problem = "routed " + String.join(", ", routes) + " — a repeat makes no decision";
        } else if (!dropped.contains(r.repeatId())) {
          problem = "not dropped as a duplicate";
        }
      } else if (!routes.equals(List.of("dead_lettered (event_id_conflict)"))) {
        problem =
            (routes.isEmpty()
                    ? dropped.contains(r.repeatId()) ? "dropped as a duplicate" : "routed nowhere"
                    : "routed " + String.join(", ", routes))
                + " — a repeat with another payload is dead-lettered as an event_id conflict";
      }
      for (Map.Entry<String, String> state : outcome.finalState.entrySet()) {
        String applied = state.getValue().split(": ", 2)[1];
        for (String e : applied.split(", ")) {
          if (e.replace(" (late)", "").equals(r.repeatId())) {
            problem =
                (problem == null ? "" : problem + "; ")
                    + "applied to key "
                    + state.getKey()
                    + "'s feature state";
          }
        }
      }
      if (problem != null) {
        wrong.add("  repeat " + r.describe(cut) + ": " + problem + "   (not permitted)");
      }
    }
    return wrong;
  }

  /** A count and its noun, singular for one: {@code 1 key}, {@code 2 keys}. */
  private static boolean permittedLatest(String field) {
    return PERMITTED_LATEST.contains(field)
        || field.startsWith("feature ")
        || field.startsWith("state applied order");
  }

  /**
   * An outcome as a ledger: "event E route R revision N" -> its fields, and "key K" -> its final
   * state (the revision and the set of events, then their order).
   */
  static Map<String, Map<String, String>> ledger(FixtureOutcome outcome) {
    Map<String, Map<String, String>> ledger = new TreeMap<>();
    for (FixtureOutcome.Routed r : outcome.routed) {
      Map<String, String> fields = new LinkedHashMap<>();
      if (r.score() != null) {
        fields.put("score", String.valueOf(r.score()));
        new TreeMap<>(r.features())
            .forEach((f, v) -> fields.put("feature " + f, String.valueOf(v)));
        fields.put("state_revision", String.valueOf(r.stateRevision()));
      }
      r.identity()
          .forEach(
              (k, v) -> {
                if (!k.equals("event_id") && !k.equals("route") && !k.equals("revision")) {
                  fields.put(k, v);
                }
              });
      ledger.put(
          "event " + r.eventId() + " " + r.route() + (r.score() == null ? "" : " r" + r.revision()),
          fields);
    }
    outcome.duplicates.forEach(
        d -> ledger.put("event " + d.eventId + " dropped as a duplicate", new LinkedHashMap<>()));
    outcome.finalState.forEach(
        (key, state) -> {
          Map<String, String> fields = new LinkedHashMap<>();
          String[] parts = state.split(": ", 2);
          fields.put("state revision", parts[0]);
          fields.put("state events", new TreeSet<>(List.of(parts[1].split(", "))).toString());
          fields.put("state applied order", parts[1]);
          ledger.put("key " + key, fields);
        });
    return ledger;
  }
}
