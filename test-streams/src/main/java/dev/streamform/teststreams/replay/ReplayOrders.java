package dev.streamform.teststreams.replay;

import dev.streamform.planner.DeclaredModel;
import dev.streamform.policies.project.Fixture;
import dev.streamform.teststreams.fixture.Delivery;
import dev.streamform.teststreams.fixture.FixtureOutcome;
import dev.streamform.teststreams.fixture.FixtureRunner;
import dev.streamform.transforms.decisions.FeatureContract;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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

  /** What a replay found. */
  public record Result(int orders, int differingOrders, int differences, boolean permitted) {}

  private ReplayOrders() {}

  public static Result run(
      DeclaredModel model,
      Fixture fixture,
      int count,
      long seed,
      FixtureRunner runner,
      PrintWriter out) {
    return run(model, fixture, count, seed, false, runner, out);
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
    FeatureContract contract = model.scoreEvents().contract();
    List<ArrivalOrders.Order> orders = ArrivalOrders.of(fixture, count, seed, delayedPartitions);
    out.printf(
        "replay-orders: model %s (%s), fixture %s, %d arrival orders on %s, seed %d%n",
        model.model().name(),
        contract.declared(),
        fixture.name(),
        orders.size(),
        runner.runner().describe(),
        seed);
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
    Map<String, Map<String, String>> reference = ledger(outcomes.get(0));
    int differing = 0;
    int differences = 0;
    boolean permitted = true;
    for (int i = 0; i < orders.size(); i++) {
      ArrivalOrders.Order order = orders.get(i);
      Map<String, Map<String, String>> ledger = ledger(outcomes.get(i));
      List<String> lines = new ArrayList<>();
      boolean orderPermitted = true;
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
                  + (want == null ? "only in this order" : "missing in this order")
                  + " — not permitted: every order decides the same events with the same routes");
          orderPermitted = false;
          continue;
        }
        for (String field : want.keySet()) {
          if (!Objects.equals(want.get(field), got.get(field))) {
            boolean ok = contract == FeatureContract.LATEST_AVAILABLE && permittedLatest(field);
            orderPermitted &= ok;
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
      String header = "order " + order.number() + " (" + order.pattern() + "): ";
      if (lines.isEmpty()) {
        out.println(header + "identical to order 1");
      } else {
        differing++;
        differences += lines.size();
        permitted &= orderPermitted;
        out.println(
            header
                + lines.size()
                + " difference"
                + (lines.size() == 1 ? "" : "s")
                + " from order 1");
        lines.forEach(out::println);
      }
    }
    FixtureOutcome first = outcomes.get(0);
    out.printf(
        "%d orders: %d decisions, %d revised, %d dead-lettered per order; final feature state of %d"
            + " keys%n",
        orders.size(),
        first.routed("scored") + first.routed("revised"),
        first.routed("revised"),
        first.routed("dead_lettered"),
        first.finalState.size());
    first.finalState.forEach((k, v) -> out.println("  key " + k + ": " + v));
    if (differing == 0) {
      out.println(
          "identical decisions and final feature state in every order — as "
              + contract.declared()
              + " requires"
              + (contract == FeatureContract.LATEST_AVAILABLE
                  ? " nothing; it permits differences"
                  : ""));
    } else if (permitted) {
      out.println(
          differing
              + " of "
              + orders.size()
              + " orders differ from order 1 ("
              + differences
              + " differences): permitted by latest_available — the same events decided with the"
              + " same routes; what they read depended on arrival order");
    } else {
      out.println(
          differing
              + " of "
              + orders.size()
              + " orders differ from order 1 ("
              + differences
              + " differences): NOT permitted by "
              + contract.declared());
    }
    out.flush();
    return new Result(orders.size(), differing, differences, permitted);
  }

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
