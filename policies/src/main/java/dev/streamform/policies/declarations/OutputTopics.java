package dev.streamform.policies.declarations;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The topics a model writes, by kind: the names a run writes ({@code ModelSinks}) and {@code
 * streamform check} compares with the sources' topics and the other models' topics (ADR 0146). A
 * file run names its output files after them too.
 */
public final class OutputTopics {
  private OutputTopics() {}

  /** A kind of output: what its records are, and the key of {@code streamform.yml} naming it. */
  public enum Kind {
    /** The model's records: an upsert model's changelog, windowed records, or decisions. */
    RECORDS("topic"),
    LATE("late_topic"),
    QUARANTINE("quarantine_topic"),
    /** A scoring model's late events sent to reconciliation. */
    RECONCILE(null),
    /** Events dropped as duplicates, with {@code event_id} on the source. */
    DUPLICATES(null),
    /** Idle markers, with {@code idle_after} on the source. */
    IDLE(null);

    private final String key;

    Kind(String key) {
      this.key = key;
    }

    /** The key of a model in {@code streamform.yml} that names the topic; empty when none does. */
    public Optional<String> key() {
      return Optional.ofNullable(key);
    }
  }

  /**
   * One topic a model writes.
   *
   * @param declared true when {@code streamform.yml} names it, false for the default
   */
  public record Topic(Kind kind, String name, boolean declared) {}

  /**
   * The default name of {@code kind} for the model {@code model}, a scoring one when {@code
   * decides}.
   */
  public static String defaultName(Kind kind, String model, boolean decides) {
    return model + defaultSuffix(kind, decides);
  }

  /** The default name after the model's: {@code ""}, {@code .late}, {@code .quarantine}, ... */
  public static String defaultSuffix(Kind kind, boolean decides) {
    return switch (kind) {
      case RECORDS -> decides ? ".decisions" : "";
      case LATE -> ".late";
      case QUARANTINE -> decides ? ".dead_letters" : ".quarantine";
      case RECONCILE -> ".reconcile";
      case DUPLICATES -> ".duplicates";
      case IDLE -> ".idle";
    };
  }

  /**
   * The topics of the model {@code model} (a scoring one when {@code decides}) with the declared
   * {@code topic}, {@code late_topic} and {@code quarantine_topic}, in that order, then reconcile
   * (a scoring model), duplicates (when its source declares {@code event_id}) and idle markers
   * (when its source declares {@code idle_after}).
   */
  public static List<Topic> of(
      String model,
      boolean decides,
      Optional<String> topic,
      Optional<String> lateTopic,
      Optional<String> quarantineTopic,
      boolean eventId,
      boolean idles) {
    List<Topic> all = new ArrayList<>();
    all.add(named(Kind.RECORDS, model, decides, topic));
    all.add(named(Kind.LATE, model, decides, lateTopic));
    all.add(named(Kind.QUARANTINE, model, decides, quarantineTopic));
    if (decides) {
      all.add(named(Kind.RECONCILE, model, decides, Optional.empty()));
    }
    if (eventId) {
      all.add(named(Kind.DUPLICATES, model, decides, Optional.empty()));
    }
    if (idles) {
      all.add(named(Kind.IDLE, model, decides, Optional.empty()));
    }
    return all;
  }

  private static Topic named(Kind kind, String model, boolean decides, Optional<String> declared) {
    return declared
        .map(name -> new Topic(kind, name, true))
        .orElseGet(() -> new Topic(kind, defaultName(kind, model, decides), false));
  }
}
