package dev.streamform.planner.sinks;

/**
 * The description of a quarantined record, {@code partition <p> offset <o>: <reason>} — the form
 * {@code EventTimeExtraction} uses too, so both kinds of quarantine read alike.
 */
public final class Quarantine {
  private Quarantine() {}

  public static String describe(int partition, long offset, String reason) {
    return "partition " + partition + " offset " + offset + ": " + reason;
  }

  /** The reason alone, without the position prefix. */
  public static String reasonOf(String description) {
    return description.replaceFirst("^partition \\d+ offset \\d+: ", "");
  }
}
