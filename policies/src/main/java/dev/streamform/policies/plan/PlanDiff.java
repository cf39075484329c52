package dev.streamform.policies.plan;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.streamform.core.time.Durations;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a change of declarations does to a running plan (docs/semantics.md §9): each node of the two
 * manifests classified {@link Classification#SAFE SAFE}, {@link Classification#COMPATIBLE
 * COMPATIBLE} or {@link Classification#STATE_MIGRATION_REQUIRED STATE MIGRATION REQUIRED} with the
 * reason (which field moved which digest), and whether the change needs a new generation.
 *
 * <p>The rules, conservative on purpose because the diff cannot know the data:
 *
 * <ul>
 *   <li>A node whose state fingerprint moved (key, accumulators, retention, window, allowed
 *       lateness, features window) needs a state migration; so does a node with keyed state that
 *       appears or disappears.
 *   <li>A clock edit (event time, watermark, late events, idleness, partition count of a source) is
 *       never SAFE: the Source itself is stateless and is COMPATIBLE; every node with keyed state
 *       below it needs a state migration, because that state was accumulated under the old clock.
 *       Without keyed state below, the chain stays COMPATIBLE.
 *   <li>Any other change of a node's definition, output schema or time attribute is COMPATIBLE.
 *   <li>Nothing it depends on changed: SAFE.
 *   <li>A change of the watermark topology (watermark delay, idleness, partition count or topic of
 *       a source, window, allowed lateness, time zone, or event time declared or removed) needs a
 *       new {@code generation}; the diff says so when the generation did not change.
 * </ul>
 *
 * <p>Durations are compared by value, not by spelling: builds before a fixed day was written back
 * as {@code 24h} (docs/decisions/0021) wrote it {@code 1d} in manifests, and a manifest saved by
 * such a build must not read as a change of the same declaration. Where a digest covers a field
 * holding a duration and the digests differ, the fields it covers decide.
 */
public final class PlanDiff {
  /** How a node of a running plan is affected, from harmless to needing a migration. */
  public enum Classification {
    SAFE("SAFE"),
    COMPATIBLE("COMPATIBLE"),
    STATE_MIGRATION_REQUIRED("STATE MIGRATION REQUIRED");

    private final String label;

    Classification(String label) {
      this.label = label;
    }

    /** As printed: {@code STATE MIGRATION REQUIRED} with spaces. */
    public String label() {
      return label;
    }
  }

  /** One node's verdict: its id and kind, its classification and why. */
  public record NodeChange(
      String id, String kind, Classification classification, List<String> reasons) {}

  /**
   * What a change of the model's effect rules does (docs/semantics.md §10): its classification and
   * the lines that say what changed and what happens to the effects of revisions already written.
   */
  public record EffectsChange(Classification classification, List<String> reasons) {}

  /** The effect rules' line, when they changed; empty when they did not. */
  public java.util.Optional<EffectsChange> effects() {
    return java.util.Optional.ofNullable(effects);
  }

  private final List<NodeChange> nodes;
  private final EffectsChange effects;
  private final List<String> generationReasons;
  private final int runningGeneration;
  private final int newGeneration;

  private PlanDiff(
      List<NodeChange> nodes,
      EffectsChange effects,
      List<String> generationReasons,
      int runningGeneration,
      int newGeneration) {
    this.nodes = List.copyOf(nodes);
    this.effects = effects;
    this.generationReasons = List.copyOf(generationReasons);
    this.runningGeneration = runningGeneration;
    this.newGeneration = newGeneration;
  }

  /**
   * Thrown when a file is not a plan manifest; the message says what is wrong and how to get one.
   */
  public static class NotAManifestException extends Exception {
    NotAManifestException(String message) {
      super(message);
    }
  }

  /**
   * Thrown when a manifest's field no longer hashes to the digest stored beside it: the file was
   * edited after {@code inspect-plan} wrote it (docs/decisions/0114). The message names the node
   * and the field; the fix is to write the manifest again from the running declaration.
   */
  public static final class EditedManifestException extends NotAManifestException {
    EditedManifestException(String message) {
      super(message);
    }
  }

  /** The node kinds a manifest has (as {@link PlanManifest} writes them). */
  private static final List<String> KINDS =
      List.of("Source", "Duplicates", "Filter", "Aggregate", "Decisions");

  /**
   * Checks that {@code tree} is a plan manifest {@link PlanManifest} writes: an object with {@code
   * "manifest": "streamform-plan/1"}, a text {@code model}, a whole-number {@code generation} from
   * 1 where present, a {@code time_policy} object with a {@code policy} object where present, and a
   * non-empty {@code nodes} list of objects, each with a text {@code id}, a {@code kind} of {@link
   * #KINDS}, a {@code definition} object and a text {@code definition_digest}; an {@code Aggregate}
   * node has its {@code state} (an object with a text {@code digest}). The message says the first
   * field that is missing or of the wrong type.
   *
   * <p>Then each digest must be the digest of what it covers, as stored ({@link
   * EditedManifestException} when not): a node's {@code definition}, {@code schema} and {@code
   * state.fingerprint}, and the {@code time_policy}'s {@code policy}. A manifest is the record of
   * what runs, and plan compares values only where digests differ, so a field edited under its old
   * digest would read as unchanged (docs/decisions/0114). A manifest an older build wrote and
   * nobody edited still loads: its digests cover its own spelling (a fixed day {@code 1d}, ADR
   * 0107), which is what is hashed here; key order and layout do not count.
   */
  public static void requireManifest(JsonNode tree) throws NotAManifestException {
    if (tree == null || !tree.isObject()) {
      throw new NotAManifestException("it is not a JSON object");
    }
    if (!PlanManifest.FORMAT.equals(tree.path("manifest").asText(null))) {
      throw new NotAManifestException(
          "it has no \"manifest\": \""
              + PlanManifest.FORMAT
              + "\" field"
              + (tree.has("manifest") ? " (it says " + tree.get("manifest") + ")" : ""));
    }
    requireText(tree, "model", "");
    if (tree.has("generation")) {
      requireGeneration(tree.get("generation"), "\"generation\"");
    }
    if (tree.has("time_policy")) {
      JsonNode policy = tree.get("time_policy");
      if (!policy.isObject() || !policy.path("policy").isObject()) {
        throw new NotAManifestException(
            "\"time_policy\" is " + shown(policy) + ", not an object with a \"policy\" object");
      }
      if (policy.get("policy").has("generation")) {
        requireGeneration(
            policy.get("policy").get("generation"), "\"time_policy\".\"policy\".\"generation\"");
      }
    }
    if (tree.has("effects")) {
      JsonNode effects = tree.get("effects");
      if (!effects.isObject() || !effects.path("rules").isArray()) {
        throw new NotAManifestException(
            "\"effects\" is " + shown(effects) + ", not an object with a \"rules\" list");
      }
    }
    if (!tree.path("nodes").isArray()) {
      throw new NotAManifestException(
          tree.has("nodes")
              ? "\"nodes\" is " + shown(tree.get("nodes")) + ", not a list"
              : "it has no \"nodes\" list");
    }
    if (tree.get("nodes").isEmpty()) {
      throw new NotAManifestException(
          "it has no nodes (\"nodes\" is empty; a plan has at least its Source node)");
    }
    int i = 0;
    for (JsonNode n : tree.get("nodes")) {
      i++;
      if (!n.isObject()) {
        throw new NotAManifestException("node " + i + " is " + shown(n) + ", not an object");
      }
      if (!n.path("id").isTextual() || !n.path("kind").isTextual()) {
        throw new NotAManifestException("node " + i + " has no \"id\" or \"kind\"");
      }
      String node = "node " + i + " (" + n.get("id").asText() + ")";
      String kind = n.get("kind").asText();
      if (!KINDS.contains(kind)) {
        throw new NotAManifestException(
            node + " has kind '" + kind + "', not one of " + String.join(", ", KINDS));
      }
      if (!n.path("definition").isObject()) {
        throw new NotAManifestException(
            node
                + (n.has("definition")
                    ? " has \"definition\": " + shown(n.get("definition")) + ", not an object"
                    : " has no \"definition\""));
      }
      requireText(n, "definition_digest", node + " ");
      for (String optional : List.of("schema_digest", "time")) {
        if (n.has(optional) && !n.get(optional).isTextual()) {
          throw new NotAManifestException(
              node + " has \"" + optional + "\": " + shown(n.get(optional)) + ", not text");
        }
      }
      if (n.has("schema") && !n.get("schema").isObject()) {
        throw new NotAManifestException(
            node + " has \"schema\": " + shown(n.get("schema")) + ", not an object");
      }
      if (kind.equals("Aggregate") || n.has("state")) {
        JsonNode state = n.get("state");
        if (state == null || !state.isObject() || !state.path("digest").isTextual()) {
          throw new NotAManifestException(
              node
                  + (state == null
                      ? " has no \"state\" (an Aggregate node's keyed state)"
                      : " has \"state\": " + shown(state) + ", not an object with a \"digest\""));
        }
      }
    }
    requireDigests(tree);
  }

  /** Each digest of a checked manifest against the digest of what it covers, as stored. */
  private static void requireDigests(JsonNode tree) throws EditedManifestException {
    int i = 0;
    for (JsonNode n : tree.get("nodes")) {
      i++;
      String node = "node " + i + " (" + n.get("id").asText() + ")";
      requireDigest(
          node,
          "\"definition\"",
          n.get("definition"),
          "\"definition_digest\"",
          n.get("definition_digest"));
      if (n.has("schema") || n.has("schema_digest")) {
        requireDigest(
            node, "\"schema\"", n.get("schema"), "\"schema_digest\"", n.get("schema_digest"));
      }
      if (n.has("state")) {
        requireDigest(
            node,
            "\"state\".\"fingerprint\"",
            n.get("state").get("fingerprint"),
            "\"state\".\"digest\"",
            n.get("state").get("digest"));
      }
    }
    if (tree.has("effects")) {
      requireDigest(
          "the manifest",
          "\"effects\".\"rules\"",
          tree.get("effects").get("rules"),
          "\"effects\".\"digest\"",
          tree.get("effects").get("digest"));
    }
    if (tree.has("time_policy")) {
      JsonNode policy = tree.get("time_policy");
      requireDigest(
          "the manifest",
          "\"time_policy\".\"policy\"",
          policy.get("policy"),
          "\"time_policy\".\"digest\"",
          policy.get("digest"));
      // the top-level generation is in no digest, the policy's is: they are written alike
      JsonNode top = tree.get("generation");
      JsonNode inPolicy = policy.path("policy").get("generation");
      if (top != null && inPolicy != null && top.asInt() != inPolicy.asInt()) {
        throw new EditedManifestException(
            "the manifest has \"generation\": "
                + top
                + " but \"time_policy\".\"policy\".\"generation\": "
                + inPolicy
                + "; inspect-plan writes them alike, so one was changed after it wrote the"
                + " manifest, and a manifest is the record of what runs; write it again from the"
                + " declarations the running job was started with: streamform inspect-plan"
                + " <project> <model> > <manifest.json>");
      }
    }
  }

  private static void requireDigest(
      String where, String field, JsonNode content, String digestField, JsonNode digest)
      throws EditedManifestException {
    String fix =
        ": the manifest was changed after streamform inspect-plan wrote it, and a manifest is the"
            + " record of what runs; write it again from the declarations the running job was"
            + " started with: streamform inspect-plan <project> <model> > <manifest.json>";
    if (content == null || digest == null || !digest.isTextual()) {
      throw new EditedManifestException(
          where
              + " has "
              + (content == null ? "no " + field : field)
              + (digest == null || !digest.isTextual() ? " but no text " + digestField : "")
              + " to check it against"
              + fix);
    }
    String actual = PlanManifest.digestOfTree(content);
    if (!actual.equals(digest.asText())) {
      throw new EditedManifestException(
          where
              + " has "
              + field
              + " that does not match its "
              + digestField
              + " ("
              + shortDigest(digest.asText())
              + "; what it holds hashes to "
              + shortDigest(actual)
              + ")"
              + fix);
    }
  }

  private static void requireText(JsonNode tree, String field, String prefix)
      throws NotAManifestException {
    JsonNode v = tree.get(field);
    if (v == null) {
      throw new NotAManifestException(prefix + "has no \"" + field + "\"");
    }
    if (!v.isTextual()) {
      throw new NotAManifestException(
          prefix.isEmpty()
              ? "\"" + field + "\" is " + shown(v) + ", not text"
              : prefix + "has \"" + field + "\": " + shown(v) + ", not text");
    }
  }

  private static void requireGeneration(JsonNode v, String field) throws NotAManifestException {
    if (!v.isIntegralNumber() || !v.canConvertToInt() || v.asInt() < 1) {
      throw new NotAManifestException(field + " is " + shown(v) + ", not a whole number from 1");
    }
  }

  /** A value as the message shows it: short JSON. */
  private static String shown(JsonNode v) {
    String s = v.toString();
    return s.length() > 40 ? s.substring(0, 37) + "..." : s;
  }

  /**
   * Compares the running plan's manifest with the new one (both checked with {@link
   * #requireManifest}).
   */
  public static PlanDiff between(JsonNode running, JsonNode proposed) {
    Map<String, JsonNode> before = byId(running);
    Map<String, JsonNode> after = byId(proposed);
    List<String> clockChanges = clockChanges(before, after);

    List<String> ids = new ArrayList<>(after.keySet());
    before.keySet().stream().filter(id -> !after.containsKey(id)).forEach(ids::add);
    List<NodeChange> changes = new ArrayList<>();
    for (String id : ids) {
      JsonNode old = before.get(id);
      JsonNode now = after.get(id);
      String kind = (now != null ? now : old).get("kind").asText();
      changes.add(classify(id, kind, old, now, clockChanges));
    }

    int runningGeneration = generation(running);
    int newGeneration = generation(proposed);
    List<String> topology = topologyChanges(running, proposed);
    // a generation before the running one is not new either (generation numbers go forward, ADR
    // 0115): the change still needs one after the running generation
    List<String> generationReasons =
        !topology.isEmpty() && newGeneration <= runningGeneration ? topology : List.of();
    return new PlanDiff(
        changes,
        effectsChange(running, proposed),
        generationReasons,
        runningGeneration,
        newGeneration);
  }

  /** The nodes in the new plan's order, then those the new plan no longer has. */
  public List<NodeChange> nodes() {
    return nodes;
  }

  /** The worst classification of any node or of the effect rules (SAFE for two identical plans). */
  public Classification overall() {
    Classification worst =
        nodes.stream()
            .map(NodeChange::classification)
            .max(Enum::compareTo)
            .orElse(Classification.SAFE);
    return effects != null && effects.classification().compareTo(worst) > 0
        ? effects.classification()
        : worst;
  }

  /**
   * What the effect rules' change does (docs/decisions/0149, 0150): null when both manifests record
   * the same rules, or neither records any. No keyed state depends on a rule, so a change is
   * COMPATIBLE; the effects of revisions already written are not evaluated again until the
   * canonical generation changes. A running manifest without {@code effects} beside a model that
   * declares some may predate effect rules in manifests: it is read, and said so.
   */
  private static EffectsChange effectsChange(JsonNode running, JsonNode proposed) {
    JsonNode old = running.path("effects");
    JsonNode now = proposed.path("effects");
    if (old.isMissingNode() && now.isMissingNode()) {
      return null;
    }
    if (!old.isMissingNode()
        && !now.isMissingNode()
        && old.path("digest").equals(now.path("digest"))) {
      return null;
    }
    List<String> reasons = new ArrayList<>();
    Map<String, JsonNode> before = rulesByType(old);
    Map<String, JsonNode> after = rulesByType(now);
    if (old.isMissingNode()) {
      reasons.add(
          "the running manifest records no effect rules: the model declared none, or the manifest"
              + " predates effect rules (written before manifests recorded them); the declared"
              + " rules:");
      after.values().forEach(r -> reasons.add("  " + describeRule(r)));
    } else {
      reasons.add("no keyed state depends on the effect rules");
      TreeSet<String> types = new TreeSet<>(before.keySet());
      types.addAll(after.keySet());
      for (String type : types) {
        JsonNode a = before.get(type);
        JsonNode b = after.get(type);
        if (a == null) {
          reasons.add("effects[" + type + "]: new rule: " + describeRule(b));
        } else if (b == null) {
          reasons.add(
              "effects["
                  + type
                  + "]: rule removed: "
                  + describeRule(a)
                  + " (new revisions prepare no effect of it)");
        } else {
          differences("effects[" + type + "]", a, b, reasons);
        }
      }
      reasons.add(
          "effects digest "
              + shortDigest(old.path("digest").asText(""))
              + " -> "
              + shortDigest(now.path("digest").asText("")));
    }
    if (!after.isEmpty()) {
      reasons.add(
          "the job evaluates the rules on the revisions it writes; windows already written are not"
              + " evaluated again under the new rules until the canonical generation changes"
              + " (streamform alias set evaluates every rule on the canonical values: newly true"
              + " with no effect -> PREPARED, DONE and now false -> a compensation, never a second"
              + " effect)");
    }
    return new EffectsChange(Classification.COMPATIBLE, reasons);
  }

  private static Map<String, JsonNode> rulesByType(JsonNode effects) {
    Map<String, JsonNode> m = new LinkedHashMap<>();
    for (JsonNode r : effects.path("rules")) {
      m.put(r.path("type").asText(), r);
    }
    return m;
  }

  /** A rule in one line: {@code reward for merchant_id when revenue >= 1000}. */
  private static String describeRule(JsonNode rule) {
    return rule.path("type").asText()
        + " for "
        + rule.path("subject").asText()
        + " when "
        + rule.path("when").asText();
  }

  /**
   * Why the change needs a new generation that it does not declare: the watermark-topology fields
   * that moved while the generation stayed the same or went back. Empty when none moved or the
   * generation moved forward.
   */
  public List<String> generationRequired() {
    return generationReasons;
  }

  public int runningGeneration() {
    return runningGeneration;
  }

  public int newGeneration() {
    return newGeneration;
  }

  /**
   * True when the declaration's generation is lower than the running plan's (docs/decisions/0115):
   * generation numbers go forward, so that generation is not new — it was written before the
   * running one, and its projections may still be in the ledger — and deploying it is refused.
   */
  public boolean generationGoesBack() {
    return newGeneration < runningGeneration;
  }

  /**
   * True when the declaration's generation is after the running one: the new generation starts from
   * the log with empty state, beside or in place of the running job, and restores no savepoint of
   * it (docs/decisions/0139).
   */
  public boolean startsFromTheLog() {
    return newGeneration > runningGeneration;
  }

  /**
   * 0 when every node is SAFE or COMPATIBLE and no generation is missing, or when the generation
   * moved forward (a new generation starts from the log, so a node that needs a state migration
   * starts empty: docs/decisions/0139); 2 when a node needs a state migration under the running
   * generation, the change needs a new generation it does not declare, or the generation goes back.
   */
  public int exitCode() {
    return (overall() == Classification.STATE_MIGRATION_REQUIRED && !startsFromTheLog())
            || !generationReasons.isEmpty()
            || generationGoesBack()
        ? 2
        : 0;
  }

  private static NodeChange classify(
      String id, String kind, JsonNode old, JsonNode now, List<String> clockChanges) {
    boolean stateful = (old != null && old.has("state")) || (now != null && now.has("state"));
    if (old == null) {
      return stateful
          ? new NodeChange(
              id,
              kind,
              Classification.STATE_MIGRATION_REQUIRED,
              List.of("new node with keyed state: its state starts empty"))
          : new NodeChange(id, kind, Classification.COMPATIBLE, List.of("new stateless node"));
    }
    if (now == null) {
      return stateful
          ? new NodeChange(
              id,
              kind,
              Classification.STATE_MIGRATION_REQUIRED,
              List.of("removed: its keyed state is dropped"))
          : new NodeChange(id, kind, Classification.COMPATIBLE, List.of("removed stateless node"));
    }
    if (stateful) {
      String oldDigest = old.path("state").path("digest").asText("");
      String newDigest = now.path("state").path("digest").asText("");
      if (!oldDigest.equals(newDigest)
          && !sameByValue(
              old.path("state").path("fingerprint"), now.path("state").path("fingerprint"))) {
        List<String> reasons = new ArrayList<>();
        differences(
            "state",
            old.path("state").path("fingerprint"),
            now.path("state").path("fingerprint"),
            reasons);
        reasons.add("state digest " + shortDigest(oldDigest) + " -> " + shortDigest(newDigest));
        return new NodeChange(id, kind, Classification.STATE_MIGRATION_REQUIRED, reasons);
      }
      if (!clockChanges.isEmpty()) {
        List<String> reasons = new ArrayList<>();
        reasons.add(
            "the clock above it changed, and its keyed state was accumulated under the old clock:");
        clockChanges.forEach(c -> reasons.add("  " + c));
        return new NodeChange(id, kind, Classification.STATE_MIGRATION_REQUIRED, reasons);
      }
    }
    List<String> reasons = new ArrayList<>();
    if (!old.path("definition_digest").equals(now.path("definition_digest"))
        && !sameByValue(old.path("definition"), now.path("definition"))) {
      differences("definition", old.path("definition"), now.path("definition"), reasons);
      reasons.add(
          "definition digest "
              + shortDigest(old.path("definition_digest").asText(""))
              + " -> "
              + shortDigest(now.path("definition_digest").asText("")));
    }
    if (!old.path("schema_digest").equals(now.path("schema_digest"))) {
      differences("schema", old.path("schema"), now.path("schema"), reasons);
      reasons.add(
          "schema digest "
              + shortDigest(old.path("schema_digest").asText(""))
              + " -> "
              + shortDigest(now.path("schema_digest").asText("")));
    }
    if (!old.path("time").equals(now.path("time"))) {
      reasons.add("time attribute: " + text(old.get("time")) + " -> " + text(now.get("time")));
    }
    if (!reasons.isEmpty()) {
      if (stateful) {
        reasons.add(0, "its state fingerprint did not move");
      } else {
        reasons.add(0, "stateless node changed");
      }
      return new NodeChange(id, kind, Classification.COMPATIBLE, reasons);
    }
    return new NodeChange(id, kind, Classification.SAFE, List.of("nothing it depends on changed"));
  }

  /** Clock edits of the sources: fields of a source's definition that make its watermark. */
  private static List<String> clockChanges(
      Map<String, JsonNode> before, Map<String, JsonNode> after) {
    List<String> changes = new ArrayList<>();
    TreeSet<String> sources = new TreeSet<>();
    before.keySet().stream().filter(id -> id.startsWith("source:")).forEach(sources::add);
    after.keySet().stream().filter(id -> id.startsWith("source:")).forEach(sources::add);
    for (String id : sources) {
      String name = id.substring("source:".length());
      if (!before.containsKey(id)) {
        changes.add("source " + name + " is new");
        continue;
      }
      if (!after.containsKey(id)) {
        changes.add("source " + name + " is no longer read");
        continue;
      }
      JsonNode old = before.get(id).path("definition");
      JsonNode now = after.get(id).path("definition");
      for (String field :
          List.of("event_time", "watermark", "late_events", "idle_after", "partitions")) {
        if (!byValue(field, old.path(field)).equals(byValue(field, now.path(field)))) {
          changes.add(
              "source "
                  + name
                  + " "
                  + field
                  + ": "
                  + text(old.get(field))
                  + " -> "
                  + text(now.get(field)));
        }
      }
    }
    return changes;
  }

  /**
   * Watermark-topology fields that moved (docs/semantics.md §9: a change needs a new generation).
   */
  private static List<String> topologyChanges(JsonNode running, JsonNode proposed) {
    return policyTopologyChanges(
            running.path("time_policy").path("policy"), proposed.path("time_policy").path("policy"))
        .stream()
        .map(TopologyChange::reason)
        .toList();
  }

  /**
   * One moved field of the watermark topology: {@code field} as the declarations spell it ({@code
   * watermark}, {@code allowed_lateness}, ...; {@code event_time} when event time was declared or
   * removed, {@code sources} when the set of sources changed), the source it belongs to when it is
   * a source's ({@code topic}, {@code partitions}), the value before it moved as {@code plan} shows
   * it (empty for event time declared or removed and for the set of sources), and the reason as
   * {@code plan} prints it.
   */
  public record TopologyChange(
      String field,
      java.util.Optional<String> source,
      java.util.Optional<String> before,
      String reason) {}

  /**
   * The watermark-topology fields that moved between two time policies (a manifest's {@code
   * time_policy.policy}; a missing node when the model has no event time): what needs a new
   * generation (docs/semantics.md §9). {@code streamform run} holds a generation to the policy the
   * ledger recorded for it with the same list (docs/decisions/0141).
   */
  public static List<TopologyChange> policyTopologyChanges(JsonNode old, JsonNode now) {
    List<TopologyChange> changes = new ArrayList<>();
    if (old.isMissingNode() && now.isMissingNode()) {
      return changes;
    }
    if (old.isMissingNode() || now.isMissingNode()) {
      changes.add(
          new TopologyChange(
              "event_time",
              java.util.Optional.empty(),
              java.util.Optional.empty(),
              old.isMissingNode()
                  ? "event time declared: the source now has a watermark"
                  : "event time removed: the source no longer has a watermark"));
      return changes;
    }
    for (String field :
        List.of(
            "watermark",
            "idleness",
            "window",
            "allowed_lateness",
            "timestamp_extractor",
            "time_zone")) {
      if (!byValue(field, old.path(field)).equals(byValue(field, now.path(field)))) {
        changes.add(
            new TopologyChange(
                field,
                java.util.Optional.empty(),
                java.util.Optional.of(text(old.get(field))),
                field + ": " + text(old.get(field)) + " -> " + text(now.get(field))));
      }
    }
    Map<String, JsonNode> oldSources = sources(old);
    Map<String, JsonNode> newSources = sources(now);
    if (!oldSources.keySet().equals(newSources.keySet())) {
      changes.add(
          new TopologyChange(
              "sources",
              java.util.Optional.empty(),
              java.util.Optional.empty(),
              "sources: " + oldSources.keySet() + " -> " + newSources.keySet()));
    }
    oldSources.forEach(
        (name, s) -> {
          JsonNode n = newSources.get(name);
          if (n != null && !s.path("partitions").equals(n.path("partitions"))) {
            changes.add(
                new TopologyChange(
                    "partitions",
                    java.util.Optional.of(name),
                    java.util.Optional.of(text(s.get("partitions"))),
                    "source "
                        + name
                        + " partitions: "
                        + text(s.get("partitions"))
                        + " -> "
                        + text(n.get("partitions"))));
          }
          // another topic is another partition set, whatever its count: the running clock's W_p
          // and the source's offsets are the old topic's (ADR 0103)
          if (n != null && !s.path("topic").equals(n.path("topic"))) {
            changes.add(
                new TopologyChange(
                    "topic",
                    java.util.Optional.of(name),
                    java.util.Optional.of(text(s.get("topic"))),
                    "source "
                        + name
                        + " topic: "
                        + text(s.get("topic"))
                        + " -> "
                        + text(n.get("topic"))
                        + " (another partition set)"));
          }
        });
    return changes;
  }

  private static Map<String, JsonNode> sources(JsonNode policy) {
    Map<String, JsonNode> m = new LinkedHashMap<>();
    for (JsonNode s : policy.path("sources")) {
      m.put(s.path("name").asText(), s);
    }
    return m;
  }

  private static int generation(JsonNode manifest) {
    JsonNode policy = manifest.path("time_policy").path("policy").path("generation");
    if (policy.canConvertToInt()) {
      return policy.asInt();
    }
    JsonNode top = manifest.path("generation");
    return top.canConvertToInt() ? top.asInt() : 1;
  }

  private static Map<String, JsonNode> byId(JsonNode manifest) {
    Map<String, JsonNode> m = new LinkedHashMap<>();
    for (JsonNode n : manifest.get("nodes")) {
      m.put(n.get("id").asText(), n);
    }
    return m;
  }

  /**
   * The fields of a manifest (a node's definition or state fingerprint, the time policy) whose text
   * holds durations: {@code 1d}, {@code tumbling 1d}, {@code early every 1d (processing time);
   * ...}, {@code features over 1d}.
   */
  private static final Set<String> DURATION_FIELDS =
      Set.of(
          "watermark",
          "idle_after",
          "idleness",
          "window",
          "allowed_lateness",
          "retention",
          "trigger",
          "features_over",
          "lateness",
          "max_clock_skew");

  /** A duration in a text: a whole number and a unit, not part of a longer word or number. */
  private static final Pattern DURATION = Pattern.compile("(?<![\\w.])\\d+(?:ms|s|m|h|d)(?!\\w)");

  /**
   * {@code value} as its meaning compares: under a {@link #DURATION_FIELDS duration field}, a text
   * with each duration in it respelt canonically ({@code tumbling 1d} and {@code tumbling 24h} are
   * one window); objects field by field; anything else as it is.
   */
  private static JsonNode byValue(String field, JsonNode value) {
    if (value == null) {
      return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }
    if (value.isObject()) {
      ObjectNode copy = ((ObjectNode) value).objectNode();
      value.fields().forEachRemaining(e -> copy.set(e.getKey(), byValue(e.getKey(), e.getValue())));
      return copy;
    }
    if (!value.isTextual() || !DURATION_FIELDS.contains(field)) {
      return value;
    }
    Matcher m = DURATION.matcher(value.asText());
    StringBuilder respelt = new StringBuilder();
    while (m.find()) {
      String canonical;
      try {
        canonical = Durations.format(Durations.parse(m.group()));
      } catch (IllegalArgumentException e) {
        canonical = m.group(); // too long to be a duration: left as written
      }
      m.appendReplacement(respelt, Matcher.quoteReplacement(canonical));
    }
    m.appendTail(respelt);
    return TextNode.valueOf(respelt.toString());
  }

  /**
   * Whether two objects a digest covers (a definition, a state fingerprint) mean the same, though
   * their digests differ: both are there and equal {@link #byValue by value}. An older manifest's
   * digest covers its own spelling of a duration, so only what it covers can say it is the same.
   */
  private static boolean sameByValue(JsonNode a, JsonNode b) {
    return a.isObject() && b.isObject() && byValue("", a).equals(byValue("", b));
  }

  /**
   * Lines {@code path: old -> new} for every leaf that differs between {@code a} and {@code b}
   * (durations {@link #byValue by value}), each side as its manifest writes it.
   */
  private static void differences(String path, JsonNode a, JsonNode b, List<String> out) {
    if (a != null && b != null && a.isObject() && b.isObject()) {
      TreeSet<String> fields = new TreeSet<>();
      a.fieldNames().forEachRemaining(fields::add);
      b.fieldNames().forEachRemaining(fields::add);
      for (String f : fields) {
        differences(path + "." + f, a.get(f), b.get(f), out);
      }
      return;
    }
    String field = path.substring(path.lastIndexOf('.') + 1);
    boolean same =
        a == null ? b == null || b.isMissingNode() : byValue(field, a).equals(byValue(field, b));
    if (!same) {
      out.add(path + ": " + text(a) + " -> " + text(b));
    }
  }

  private static String text(JsonNode value) {
    if (value == null || value.isMissingNode() || value.isNull()) {
      return "(absent)";
    }
    if (value.isTextual()) {
      return value.asText();
    }
    if (value.isArray()) {
      List<String> items = new ArrayList<>();
      Iterator<JsonNode> it = value.elements();
      it.forEachRemaining(v -> items.add(text(v)));
      return "[" + String.join(", ", items) + "]";
    }
    return value.toString();
  }

  private static String shortDigest(String digest) {
    return digest.isEmpty() ? "(none)" : digest.substring(0, Math.min(12, digest.length()));
  }
}
