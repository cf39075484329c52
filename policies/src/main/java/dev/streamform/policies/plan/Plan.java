package dev.streamform.policies.plan;

import dev.streamform.core.time.Durations;
import dev.streamform.policies.declarations.DecisionsSpec;
import dev.streamform.policies.declarations.EarlyResults;
import dev.streamform.policies.declarations.EffectDeclaration;
import dev.streamform.policies.declarations.ModelDeclaration;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.policies.declarations.WindowSpec;
import dev.streamform.policies.digest.DeclarationDigest;
import dev.streamform.policies.project.Project;
import dev.streamform.policies.schema.ColumnType;
import dev.streamform.policies.sql.ModelQuery;
import dev.streamform.policies.sql.ModelSql;
import dev.streamform.policies.sql.OutputColumn;
import dev.streamform.policies.sql.SqlModelException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The plan of a model as {@code streamform explain} shows it: the Source with its clock, its
 * duplicate detection (a source with {@code event_id}), a Filter for the WHERE clause, and the
 * Aggregate with its state fingerprint. Every node that carries the event-time attribute says so;
 * the fingerprint names the key, each accumulator with its type and the retention (for a windowed
 * model: the window, the allowed lateness and the trigger), so a change to any of them shows. A
 * windowed model's Aggregate also shows its window, allowed lateness, trigger and generation, and a
 * model with effects an Effects node after it, one rule a line.
 */
public final class Plan {
  private final List<List<String>> nodes;

  private Plan(List<List<String>> nodes) {
    this.nodes = nodes;
  }

  /** The plan of {@code modelName} in a loaded (hence valid) project. */
  public static Plan of(Project project, String modelName) {
    ModelDeclaration model = model(project, modelName);
    SourceDeclaration source = project.sourceOf(model);
    ModelQuery query = query(model);
    List<List<String>> nodes = new ArrayList<>();
    nodes.add(
        List.of(
            "Source",
            "name=" + source.name(),
            "connector="
                + source.connector().name().toLowerCase(Locale.ROOT)
                + source.topic().map(t -> " topic=" + t).orElse("")
                + source.path().map(p -> " path=" + p).orElse(""),
            "time=" + clock(source),
            "digest=" + DeclarationDigest.of(source).substring(0, 12)));
    String timeAttribute = source.eventTime().map(c -> "time attribute=" + c).orElse(null);
    Map<String, Object> ids = duplicates(source, model);
    if (!ids.isEmpty()) {
      // a node with state of its own, as the manifest and plan have it (ADR 0190)
      List<String> duplicates = new ArrayList<>(List.of("Duplicates"));
      duplicates.add(
          "event_id="
              + ids.get("event_id")
              + " within="
              + ids.get("within")
              + " scope="
              + ids.get("scope"));
      if (timeAttribute != null) {
        duplicates.add(timeAttribute);
      }
      duplicates.add(
          "fingerprint=duplicates "
              + ids.entrySet().stream()
                  .map(e -> e.getKey() + "=" + e.getValue())
                  .collect(Collectors.joining(" ")));
      nodes.add(duplicates);
    }
    query
        .where()
        .ifPresent(
            w -> {
              List<String> filter = new ArrayList<>(List.of("Filter", "predicate=" + w.toSql()));
              if (timeAttribute != null) {
                filter.add(timeAttribute);
              }
              nodes.add(filter);
            });
    Map<String, ColumnType> outputs = query.outputColumns(source.schema());
    List<OutputColumn> aggregates =
        query.outputs().stream()
            .filter(c -> c.kind() == OutputColumn.Kind.AGGREGATE)
            .collect(Collectors.toList());
    String key = String.join(",", model.key());
    String accumulators =
        aggregates.stream()
            .map(a -> call(a) + ": " + outputs.get(a.name()))
            .collect(Collectors.joining(", "));
    List<String> aggregate =
        new ArrayList<>(
            List.of(
                "Aggregate",
                "key=" + key,
                "aggregates="
                    + aggregates.stream().map(Plan::call).collect(Collectors.joining(", "))));
    String fingerprint =
        "fingerprint=aggregate key=[" + key + "] accumulators=[" + accumulators + "]";
    if (model.decisions().isPresent()) {
      DecisionsSpec d = model.decisions().get();
      String lower = d.contract().name().toLowerCase(java.util.Locale.ROOT);
      aggregate.add(
          "features over=" + Durations.format(d.featuresOver()) + " (trailing, event time)");
      aggregate.add(
          fingerprint
              + " features_over="
              + Durations.format(d.featuresOver())
              + " lateness="
              + Durations.format(d.lateness())
              + " late_updates_state="
              + d.lateUpdatesState());
      nodes.add(aggregate);
      nodes.add(
          List.of(
              "Decisions",
              "contract=" + lower,
              "scorer="
                  + d.linear()
                      .map(l -> "linear " + d.linearFile().get() + " digest=" + l.digest())
                      .orElse("class " + d.scorer().orElse("?")),
              "lateness="
                  + Durations.format(d.lateness())
                  + " late_action="
                  + d.lateAction().name().toLowerCase(java.util.Locale.ROOT)
                  + " late_updates_state="
                  + d.lateUpdatesState(),
              "max_clock_skew="
                  + d.maxClockSkew().map(Durations::format).orElse("not checked")
                  + " arrival="
                  + d.arrival().orElse("ingest time"),
              "generation=" + model.generation(),
              "materialized=decisions (one per event: scored | revised; late events, dead"
                  + " letters)"));
      return new Plan(nodes);
    }
    if (model.window().isPresent()) {
      WindowSpec window = model.window().get();
      aggregate.add(
          "window="
              + window.describe()
              + (window.isCalendar()
                  ? " (" + calendarSpan(window.calendarUnit().get()) + "; docs/semantics.md §6.22)"
                  : " (aligned to the epoch, UTC)"));
      aggregate.add("allowed lateness=" + Durations.format(model.allowedLateness()));
      aggregate.add("trigger=" + trigger(model.earlyResults()));
      aggregate.add("generation=" + model.generation());
      aggregate.add(
          fingerprint
              // as the manifest's fingerprint records it: whether the default zone was written out
              // is said on the window= line only, never in the state fingerprint (ADR 0097)
              + " window="
              + window.policyText()
              + " allowed_lateness="
              + Durations.format(model.allowedLateness())
              + " trigger=early "
              + model.earlyResults().yamlText());
      aggregate.add(
          "materialized="
              + model.materialized().yamlName()
              + " (revisions per key and window, accumulating: on_time, corrected, final)");
    } else {
      aggregate.add(
          fingerprint
              + " retention="
              + model.retention().map(Durations::format).orElse("unbounded"));
      aggregate.add(
          "materialized=" + model.materialized().yamlName() + " (insert/update changelog)");
      if (model.generation() != 1) {
        aggregate.add("generation=" + model.generation());
      }
    }
    nodes.add(aggregate);
    if (!model.effects().isEmpty()) {
      // evaluated on the revisions the Aggregate's ledger writes (ADR 0150: part of the plan)
      List<String> effects = new ArrayList<>(List.of("Effects"));
      model.effects().forEach(e -> effects.add(effectRule(e)));
      nodes.add(effects);
    }
    return new Plan(nodes);
  }

  /**
   * An effect rule in one line, its {@link EffectDeclaration#fields} as its manifest records them:
   * {@code reward: when revenue >= 1000 for merchant_id, mode=once; sends a webhook to URL
   * idempotency=key receipts=true}, a credential by the name of its variable or file only.
   */
  private static String effectRule(EffectDeclaration e) {
    Map<String, Object> rule = e.fields();
    Map<String, Object> provider = new LinkedHashMap<>(e.providerFields());
    StringBuilder line =
        new StringBuilder()
            .append(rule.get("type"))
            .append(": when ")
            .append(rule.get("when"))
            .append(" for ")
            .append(rule.get("subject"))
            .append(", mode=")
            .append(rule.get("mode"))
            .append("; sends a ")
            .append(provider.remove("kind"))
            .append(" to ")
            .append(provider.remove("url"));
    provider.forEach((key, value) -> line.append(' ').append(key).append('=').append(value));
    return line.toString();
  }

  /**
   * What a source's duplicate detection keeps in state, by name ({@code event_id}, {@code scope},
   * {@code within}, in that order): the manifest's Duplicates node and its fingerprint; empty when
   * the source detects none.
   */
  static Map<String, Object> duplicates(SourceDeclaration source, ModelDeclaration model) {
    Map<String, Object> ids = new java.util.TreeMap<>();
    if (source.eventId().isPresent() && source.duplicatesWithin().isPresent()) {
      ids.put("event_id", source.eventId().get());
      ids.put("within", Durations.format(source.duplicatesWithin().get()));
      ids.put(
          "scope",
          source.eventIdScope() == SourceDeclaration.EventIdScope.KEY
              ? "key " + model.key()
              : "source");
    }
    return ids;
  }

  /** The declared model {@code name}; a clear refusal naming the models there are otherwise. */
  static ModelDeclaration model(Project project, String name) {
    ModelDeclaration model = project.models().get(name);
    if (model == null) {
      throw new IllegalArgumentException(
          "no model named '"
              + name
              + "' in streamform.yml; models: "
              + String.join(", ", project.models().keySet()));
    }
    return model;
  }

  /** The model's query, parsed (it was checked when the project loaded). */
  static ModelQuery query(ModelDeclaration model) {
    try {
      return ModelSql.parse(model.sql());
    } catch (SqlModelException e) {
      throw new IllegalStateException("model " + model.name() + " was checked on load", e);
    }
  }

  /** When a window emits, in words. */
  private static String trigger(EarlyResults early) {
    String previews;
    switch (early.kind()) {
      case NONE:
        previews = "no early results";
        break;
      case EVERY_EVENTS:
        previews =
            "early results after every "
                + (early.everyEvents() == 1
                    ? "on-time event"
                    : early.everyEvents() + " on-time events of a key's window");
        break;
      default:
        previews =
            "early results every "
                + Durations.format(early.everyInterval())
                + " of processing time";
    }
    return previews
        + "; on time at the watermark; one revision per correction;"
        + " final at end + allowed lateness";
  }

  private static String clock(SourceDeclaration source) {
    if (!source.hasEventTime()) {
      return "processing (arrival order, no lateness, no expiry)";
    }
    return "event("
        + source.eventTime().get()
        + ") watermark="
        + Durations.format(source.watermark())
        + " late="
        + source.lateEvents().yamlName()
        + source.idleAfter().map(i -> " idle_after=" + Durations.format(i)).orElse("");
  }

  /** An aggregate as called: {@code sum(amount)}, {@code count(*)}. */
  static String call(OutputColumn c) {
    return c.function().get().name().toLowerCase(Locale.ROOT)
        + "("
        + c.argument().orElse("*")
        + ")";
  }

  /**
   * The nodes from the source down, each its kind ({@code Source}, {@code Duplicates}, {@code
   * Filter}, {@code Aggregate}, {@code Decisions}, {@code Effects}) followed by its attribute lines
   * as {@link #render} prints them.
   */
  public List<List<String>> nodes() {
    return nodes.stream().map(List::copyOf).collect(Collectors.toList());
  }

  /** The plan as text, nodes joined by arrows, ending with a newline. */
  public String render() {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < nodes.size(); i++) {
      if (i > 0) {
        b.append("     ↓\n");
      }
      List<String> node = nodes.get(i);
      b.append(node.get(0)).append('\n');
      node.subList(1, node.size()).forEach(line -> b.append("  ").append(line).append('\n'));
    }
    return b.toString();
  }

  /** What one calendar window spans, in words. */
  private static String calendarSpan(WindowSpec.CalendarUnit unit) {
    switch (unit) {
      case DAY:
        return "from local midnight to the next local midnight";
      case WEEK:
        return "from local midnight on the week's first day to the same a week later";
      default:
        return "from local midnight on the 1st to local midnight on the next month's 1st";
    }
  }
}
