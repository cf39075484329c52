package dev.streamform.cli;

/** A count and its noun, singular for one: {@code 1 compensation}, {@code 2 batches}. */
final class Counts {
  private Counts() {}

  static String of(long n, String noun) {
    return n + " " + (n == 1 ? noun : noun.endsWith("h") ? noun + "es" : noun + "s");
  }
}
