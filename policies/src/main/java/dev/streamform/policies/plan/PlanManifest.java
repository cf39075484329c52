package dev.streamform.policies.plan;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.streamform.core.state.StateLayouts;
import dev.streamform.core.time.Durations;
import dev.streamform.policies.declarations.DecisionsSpec;
import dev.streamform.policies.declarations.EarlyResults;
import dev.streamform.policies.declarations.EffectDeclaration;
import dev.streamform.policies.declarations.ModelDeclaration;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.policies.project.Project;
import dev.streamform.policies.schema.ColumnType;
import dev.streamform.policies.sql.ModelQuery;
import dev.streamform.policies.sql.OutputColumn;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The manifest of a model's plan, as {@code streamform inspect-plan} prints it: JSON with the
 * model's nodes in plan order (Source, an optional Filter, the Aggregate, for a scoring model its
 * Decisions), each with its definition and definition digest, its output schema and schema digest
 * where it has one, the state fingerprint and state digest of the node that keeps keyed state, and
 * the event-time attribute of every node that carries it; then the model's time policy
 * (docs/semantics.md §9) with its digest, the job digest; for a model that declares effects, its
 * effect rules with their digest (docs/semantics.md §10).
 *
 * <p>Guarantees: the text is a function of the meaning of the declarations only — object keys are
 * sorted, durations and types are in their canonical spelling, defaults are written out — so it is
 * identical across runs and however the YAML was written (key order, quoting, {@code 300s} or
 * {@code 5m}). A model whose source has no event time gets no {@code time} field on any node and no
 * {@code time_policy}: its manifest is byte-identical to one written before event time existed.
 * Declaring event time moves no state or schema digest: the Source's definition gains the clock
 * fields and the nodes that carry the attribute gain {@code time}. Digests are SHA-256 of the
 * compact canonical JSON of what they cover.
 *
 * <p>{@code inspect-plan} prints the manifest of the built pipeline ({@link #of(Project, String,
 * List)}): the same nodes, in the order of the steps that realise them, and a {@code steps} list of
 * every applied step, which {@link PlanDiff} does not read.
 */
public final class PlanManifest {
  /** The value of the manifest's {@code manifest} field: its format and version. */
  public static final String FORMAT = "streamform-plan/1";

  private static final ObjectMapper CANONICAL =
      JsonMapper.builder()
          .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
          .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
          .build();
  private static final ObjectWriter PRETTY =
      CANONICAL.writer(
          new DefaultPrettyPrinter()
              .withSeparators(
                  Separators.createDefaultInstance()
                      .withObjectFieldValueSpacing(Separators.Spacing.AFTER))
              .withObjectIndenter(new DefaultIndenter("  ", "\n"))
              .withArrayIndenter(new DefaultIndenter("  ", "\n")));

  private final Map<String, Object> manifest;

  private PlanManifest(Map<String, Object> manifest) {
    this.manifest = manifest;
  }

  /**
   * The keyed stages of the model's job whose state layout moved since layouts were versioned
   * ({@link StateLayouts}), with their versions: a savepoint restores only into the same layouts,
   * so a moved version is a state migration. Stages still at version 1 are not written, so a
   * manifest reads byte for byte as before versioning until a layout moves.
   */
  static String stateLayout(
      SourceDeclaration source, ModelDeclaration model, Map<String, Integer> versions) {
    List<String> stages = new ArrayList<>();
    stages.add("clock");
    if (source.eventId().isPresent()) {
      stages.add("dedup");
    }
    stages.add(
        model.decisions().isPresent()
            ? "decisions"
            : model.window().isPresent() ? "windows" : "changelog");
    return stages.stream()
        .filter(stage -> versions.get(stage) > 1)
        .map(stage -> stage + " " + versions.get(stage))
        .collect(Collectors.joining(", "));
  }

  /** The manifest of {@code modelName} in a loaded (hence valid) project. */
  public static PlanManifest of(Project project, String modelName) {
    return of(project, modelName, StateLayouts.all());
  }

  /** The manifest as a build whose stages have the state layout {@code versions} writes it. */
  static PlanManifest of(Project project, String modelName, Map<String, Integer> versions) {
    Declared declared = Declared.of(project, modelName, versions);
    List<Object> nodes = new ArrayList<>();
    for (Node kind : Node.values()) {
      declared.declared(kind).ifPresent(nodes::add);
    }
    return new PlanManifest(declared.manifest(nodes, null));
  }

  /**
   * The manifest of the pipeline as built: its nodes in the order the built pipeline applies the
   * {@code steps} that realise them ({@link Step#realises()}), and every step the pipeline applies
   * listed under {@code steps} with its display data, so no applied step can be missing from the
   * manifest (issue 30). The nodes read byte for byte as {@link #of(Project, String)} writes them
   * when the pipeline applies every declared node; a step realising a node the declarations lack is
   * a bug of the build and throws.
   */
  public static PlanManifest of(Project project, String modelName, List<Step> steps) {
    Declared declared = Declared.of(project, modelName, StateLayouts.all());
    List<Object> nodes = new ArrayList<>();
    for (Step step : steps) {
      for (Node kind : step.realises()) {
        nodes.add(
            declared
                .declared(kind)
                .orElseThrow(
                    () ->
                        new IllegalStateException(
                            "the built pipeline applies a "
                                + kind
                                + " node in step '"
                                + step.name()
                                + "' that model "
                                + modelName
                                + " does not declare")));
      }
    }
    List<Object> listed = new ArrayList<>();
    steps.forEach(step -> listed.add(step.toMap()));
    return new PlanManifest(declared.manifest(nodes, listed));
  }

  /** A node of the manifest, in plan order. */
  public enum Node {
    SOURCE,
    DUPLICATES,
    FILTER,
    AGGREGATE,
    DECISIONS
  }

  /**
   * One step the built pipeline applies: its name in the pipeline, its transform's class, its
   * display data as sorted {@code label: value} lines, the steps inside it that have display data
   * of their own, and the manifest nodes it realises (none for most steps).
   */
  public record Step(
      String name, String transform, List<String> display, List<Step> inner, List<Node> realises) {
    public Step {
      display = List.copyOf(display);
      inner = List.copyOf(inner);
      realises = List.copyOf(realises);
    }

    private Map<String, Object> toMap() {
      Map<String, Object> m = new TreeMap<>();
      m.put("name", name);
      m.put("transform", transform);
      if (!display.isEmpty()) {
        m.put("display", display);
      }
      if (!inner.isEmpty()) {
        m.put("steps", inner.stream().map(Step::toMap).collect(Collectors.toList()));
      }
      return m;
    }
  }

  /** The nodes the declarations describe, and the manifest's other fields. */
  private record Declared(
      ModelDeclaration model, SourceDeclaration source, Map<Node, Map<String, Object>> nodes) {

    Optional<Map<String, Object>> declared(Node kind) {
      return Optional.ofNullable(nodes.get(kind));
    }

    Map<String, Object> manifest(List<Object> nodeList, List<Object> steps) {
      Map<String, Object> m = new TreeMap<>();
      m.put("manifest", FORMAT);
      m.put("model", model.name());
      m.put("nodes", nodeList);
      if (steps != null) {
        m.put("steps", steps);
      }
      if (model.generation() != 1 || model.windowed() || model.decides()) {
        m.put("generation", model.generation());
      }
      if (source.hasEventTime()) {
        m.put("time_policy", withDigest(timePolicy(source, model), "policy"));
      }
      if (!model.effects().isEmpty()) {
        // written only when declared, so a model without effects has the manifest it had before
        // effect rules were recorded (docs/decisions/0150)
        m.put(
            "effects",
            withDigest(model.effects().stream().map(PlanManifest::effectRule).toList(), "rules"));
      }
      return m;
    }

    static Declared of(Project project, String modelName, Map<String, Integer> versions) {
      ModelDeclaration model = Plan.model(project, modelName);
      SourceDeclaration source = project.sourceOf(model);
      ModelQuery query = Plan.query(model);
      Map<Node, Map<String, Object>> nodes = new EnumMap<>(Node.class);
      String time = source.eventTime().orElse(null);

      Map<String, Object> definition = sourceDefinition(source);
      Map<String, Object> sourceNode = node("source:" + source.name(), "Source", definition, time);
      withSchema(sourceNode, new LinkedHashMap<>(source.schema()));
      nodes.put(Node.SOURCE, sourceNode);
      Map<String, Object> ids = Plan.duplicates(source, model);
      if (!ids.isEmpty()) {
        // the duplicate detection keeps each id's first event in state until its horizon, and
        // decides which events reach the aggregate: adding, removing or changing it (the id
        // column, the horizon, the scope) changes that state (docs/semantics.md §9; it was in no
        // node, so plan called such an edit SAFE)
        Map<String, Object> duplicates = node("duplicates", "Duplicates", ids, time);
        duplicates.put("state", withDigest(new TreeMap<>(ids), "fingerprint"));
        nodes.put(Node.DUPLICATES, duplicates);
      }

      query
          .where()
          .ifPresent(
              w ->
                  nodes.put(
                      Node.FILTER, node("filter", "Filter", map("predicate", w.toSql()), time)));
      Map<String, ColumnType> outputs = query.outputColumns(source.schema());
      List<OutputColumn> aggregates =
          query.outputs().stream()
              .filter(c -> c.kind() == OutputColumn.Kind.AGGREGATE)
              .collect(Collectors.toList());
      Map<String, Object> aggregateDefinition = new TreeMap<>();
      aggregateDefinition.put("key", model.key());
      aggregateDefinition.put(
          "aggregates",
          aggregates.stream()
              .map(a -> Plan.call(a) + " AS " + a.name())
              .collect(Collectors.toList()));
      aggregateDefinition.put("materialized", model.materialized().yamlName());
      Map<String, Object> fingerprint = new TreeMap<>();
      fingerprint.put("key", model.key());
      fingerprint.put(
          "accumulators",
          aggregates.stream()
              .map(a -> Plan.call(a) + ": " + outputs.get(a.name()))
              .collect(Collectors.toList()));
      if (model.decisions().isPresent()) {
        DecisionsSpec d = model.decisions().get();
        fingerprint.put("features_over", Durations.format(d.featuresOver()));
        fingerprint.put("lateness", Durations.format(d.lateness()));
        fingerprint.put("late_updates_state", d.lateUpdatesState());
      } else if (model.window().isPresent()) {
        fingerprint.put("window", model.window().get().policyText());
        if (model.window().get().timeZone().isPresent()) {
          fingerprint.put("time_zone", model.window().get().timeZone().get().getId());
        }
        fingerprint.put("allowed_lateness", Durations.format(model.allowedLateness()));
        // an early trigger counts events per key and window in state: part of what state holds
        fingerprint.put("trigger", trigger(model.earlyResults()));
      } else {
        fingerprint.put("retention", model.retention().map(Durations::format).orElse("unbounded"));
      }
      String layout = stateLayout(source, model, versions);
      if (!layout.isEmpty()) {
        fingerprint.put("state_layout", layout);
      }
      Map<String, Object> aggregate = node("aggregate", "Aggregate", aggregateDefinition, time);
      withSchema(aggregate, new LinkedHashMap<>(outputs));
      aggregate.put("state", withDigest(fingerprint, "fingerprint"));
      nodes.put(Node.AGGREGATE, aggregate);

      if (model.decisions().isPresent()) {
        DecisionsSpec d = model.decisions().get();
        Map<String, Object> decisions = new TreeMap<>();
        decisions.put("contract", d.contract().name().toLowerCase(Locale.ROOT));
        decisions.put(
            "scorer",
            d.linear()
                .map(l -> "linear " + d.linearFile().get() + " digest=" + l.digest())
                .orElse("class " + d.scorer().orElse("?")));
        decisions.put("late_action", d.lateAction().name().toLowerCase(Locale.ROOT));
        decisions.put(
            "max_clock_skew", d.maxClockSkew().map(Durations::format).orElse("not checked"));
        decisions.put("arrival", d.arrival().orElse("ingest time"));
        nodes.put(Node.DECISIONS, node("decisions", "Decisions", decisions, time));
      }
      return new Declared(model, source, nodes);
    }
  }

  /** The manifest as pretty-printed canonical JSON, ending with a newline. */
  public String toJson() {
    try {
      return PRETTY.writeValueAsString(manifest) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a manifest is plain maps, lists and strings", e);
    }
  }

  /** The manifest as a JSON tree (what {@link PlanDiff} compares). */
  public JsonNode toTree() {
    return CANONICAL.valueToTree(manifest);
  }

  /** The SHA-256 of the compact canonical JSON of {@code value}, as 64 lowercase hex digits. */
  static String digest(Object value) {
    try {
      byte[] json = CANONICAL.writeValueAsString(value).getBytes(StandardCharsets.UTF_8);
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(json));
    } catch (JsonProcessingException | NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The digest of a part of a manifest read back from its text, as {@link #digest} computed it when
   * the manifest was written: the same compact canonical JSON (object keys sorted), whatever the
   * file's key order and layout.
   */
  static String digestOfTree(JsonNode content) {
    return digest(CANONICAL.convertValue(content, Object.class));
  }

  /**
   * The source's definition: connector, where, format and, when declared, the partition count; with
   * event time also its clock (event_time, watermark, late_events, idle_after) — the suffix that
   * declaring event time adds.
   */
  private static Map<String, Object> sourceDefinition(SourceDeclaration s) {
    Map<String, Object> d = new TreeMap<>();
    d.put("name", s.name());
    d.put("connector", s.connector().yamlName());
    s.topic().ifPresent(t -> d.put("topic", t));
    s.path().ifPresent(p -> d.put("path", p));
    d.put("format", s.format());
    s.partitions().ifPresent(n -> d.put("partitions", n));
    s.eventTime()
        .ifPresent(
            column -> {
              d.put("event_time", column);
              d.put("watermark", Durations.format(s.watermark()));
              d.put("late_events", s.lateEvents().yamlName());
              s.idleAfter().ifPresent(i -> d.put("idle_after", Durations.format(i)));
            });
    return d;
  }

  /**
   * The zone a window's identity hashes (docs/semantics.md §6, calendar windows) under a time
   * policy as {@link #toTree()} writes it ({@code time_policy.policy}), e.g. as a ledger recorded
   * it for a generation: its {@code time_zone} for calendar windows, none for fixed windows or
   * without a window.
   */
  public static Optional<String> identityZone(JsonNode policy) {
    if (!policy.path("window").asText("").startsWith(CALENDAR_POLICY_PREFIX)) {
      return Optional.empty();
    }
    return Optional.of(policy.path("time_zone").asText("UTC"));
  }

  /** How {@code WindowSpec.policyText()} begins for a calendar window. */
  private static final String CALENDAR_POLICY_PREFIX = "calendar ";

  /** Every field docs/semantics.md §9 binds into a model's time policy. */
  private static Map<String, Object> timePolicy(SourceDeclaration s, ModelDeclaration model) {
    Map<String, Object> p = new TreeMap<>();
    Map<String, Object> source = new TreeMap<>();
    source.put("name", s.name());
    source.put("connector", s.connector().yamlName());
    s.topic().ifPresent(t -> source.put("topic", t));
    s.path().ifPresent(path -> source.put("path", path));
    source.put("partitions", s.partitions().<Object>map(n -> n).orElse("undeclared"));
    p.put("sources", List.of(source));
    p.put("timestamp_extractor", s.eventTime().get());
    // a calendar window's zone places its midnights: part of the time policy (semantics §6.24)
    p.put("time_zone", model.window().flatMap(w -> w.timeZone()).map(z -> z.getId()).orElse("UTC"));
    p.put("watermark", Durations.format(s.watermark()));
    p.put("idleness", s.idleAfter().map(Durations::format).orElse("never"));
    p.put("late_classification", s.lateEvents().yamlName());
    p.put("window", model.window().map(w -> w.policyText()).orElse("none"));
    p.put("trigger", model.windowed() ? trigger(model.earlyResults()) : "none");
    p.put(
        "allowed_lateness",
        model
            .decisions()
            .map(d -> Durations.format(d.lateness()))
            .orElse(Durations.format(model.allowedLateness())));
    p.put(
        "retention",
        model.decides()
            ? "features over " + Durations.format(model.decisions().get().featuresOver())
            : model.windowed()
                ? "until final: window end + allowed lateness"
                : model.retention().map(Durations::format).orElse("unbounded"));
    p.put(
        "sink_correction_mode",
        model.decides()
            ? "decisions: one per event, revised decisions carry their predecessor"
            : model.windowed()
                ? "revisions: accumulating, compare-and-set on (projection_id, revision - 1)"
                : "upsert: insert then update per key, latest value wins");
    p.put("generation", model.generation());
    return p;
  }

  private static Map<String, Object> node(
      String id, String kind, Map<String, Object> definition, String time) {
    Map<String, Object> n = new TreeMap<>();
    n.put("id", id);
    n.put("kind", kind);
    n.put("definition", definition);
    n.put("definition_digest", digest(definition));
    if (time != null) {
      n.put("time", time);
    }
    return n;
  }

  private static void withSchema(Map<String, Object> node, Map<String, ColumnType> columns) {
    Map<String, Object> schema = new TreeMap<>();
    columns.forEach((c, t) -> schema.put(c, t.toString()));
    node.put("schema", schema);
    node.put("schema_digest", digest(schema));
  }

  /**
   * One declared effect rule as the manifest records it: all its {@link EffectDeclaration#fields},
   * defaults written out; of a webhook's credential only where it is read from (never a value).
   */
  private static Map<String, Object> effectRule(EffectDeclaration e) {
    Map<String, Object> r = new TreeMap<>(e.fields());
    r.put("provider", new TreeMap<>(e.providerFields()));
    return r;
  }

  private static Map<String, Object> withDigest(Object content, String name) {
    Map<String, Object> m = new TreeMap<>();
    m.put(name, content);
    m.put("digest", digest(content));
    return m;
  }

  private static Map<String, Object> map(String key, Object value) {
    Map<String, Object> m = new TreeMap<>();
    m.put(key, value);
    return m;
  }

  private static String trigger(EarlyResults early) {
    switch (early.kind()) {
      case NONE:
        return "on time at the watermark, one revision per correction, final at end + allowed"
            + " lateness";
      case EVERY_EVENTS:
        return "early every " + early.everyEvents() + " events; on time; corrections; final";
      default:
        return "early every "
            + Durations.format(early.everyInterval())
            + " (processing time); on time; corrections; final";
    }
  }
}
