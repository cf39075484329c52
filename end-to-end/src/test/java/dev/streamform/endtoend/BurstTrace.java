package dev.streamform.endtoend;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;

/**
 * The receipts of {@code examples/receipts-burst} (one file per partition) and what
 * docs/semantics.md §2 and §11 say about each, computed here from the files alone — no code shared
 * with the clock or {@code ScoreEvents}: each partition's watermark at a receipt's arrival, its
 * route, and, for a receipt scored as of occurrence, the features it must read.
 */
final class BurstTrace {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One line of a partition's file, with what the contract says about it. */
  record Receipt(
      int partition,
      long offset,
      long merchant,
      BigDecimal amount,
      Instant occurredAt,
      Instant receivedAt,
      Instant arrivalWatermark, // null: nothing earlier on its partition
      String route,
      byte[] line) {
    String eventId() {
      return partition + "-" + offset;
    }
  }

  final List<Receipt> receipts;
  private final Duration range;

  private BurstTrace(List<Receipt> receipts, Duration range) {
    this.receipts = receipts;
    this.range = range;
  }

  /**
   * Reads {@code receipts-*.jsonl} of {@code project} (partition = the file's place in name order,
   * offset = the line's) and judges each line by its own partition's log (§2.6): late iff {@code
   * W_p} at its arrival is past {@code t + lateness} (equal is on time), dead-lettered iff its time
   * is more than {@code maxSkew} ahead of {@code received_at}; then {@code W_p := max(W_p, t -
   * watermark)}.
   */
  static BurstTrace of(
      Path project, Duration watermark, Duration lateness, Duration maxSkew, Duration range)
      throws IOException {
    List<Path> files;
    try (Stream<Path> list = Files.list(project)) {
      files =
          list.filter(p -> p.getFileName().toString().matches("receipts-.*\\.jsonl"))
              .sorted()
              .toList();
    }
    List<Receipt> out = new ArrayList<>();
    for (int p = 0; p < files.size(); p++) {
      Instant w = null;
      long offset = 0;
      for (String line : Files.readAllLines(files.get(p), StandardCharsets.UTF_8)) {
        JsonNode r = JSON.readTree(line);
        Instant t = Instant.parse(r.get("occurred_at").asText());
        Instant received = Instant.parse(r.get("received_at").asText());
        String route;
        if (Duration.between(received, t).compareTo(maxSkew) > 0) {
          route = "dead_lettered";
        } else if (w != null && w.isAfter(t.plus(lateness))) {
          route = "reconciled";
        } else {
          route = "scored";
        }
        out.add(
            new Receipt(
                p,
                offset++,
                r.get("merchant_id").asLong(),
                r.get("amount").decimalValue(),
                t,
                received,
                w,
                route,
                line.getBytes(StandardCharsets.UTF_8)));
        Instant moved = t.minus(watermark);
        w = w == null || moved.isAfter(w) ? moved : w;
      }
    }
    return new BurstTrace(out, range);
  }

  /**
   * What a receipt scored as of occurrence reads (§11): its merchant's other receipts applied to
   * state (not late, not dead-lettered) with time in {@code (t - range, t]} that arrived while
   * their own partition's watermark was below {@code t} — of those, only the ones with time after
   * {@code keptAfter} (null: all). Returns {spend, count}.
   */
  double[] featuresOf(Receipt r, Instant keptAfter) {
    BigDecimal spend = BigDecimal.ZERO;
    int count = 0;
    Instant t = r.occurredAt();
    for (Receipt x : receipts) {
      boolean applied = x.route().equals("scored");
      boolean inRange = x.occurredAt().isAfter(t.minus(range)) && !x.occurredAt().isAfter(t);
      boolean arrivedBefore = x.arrivalWatermark() == null || x.arrivalWatermark().isBefore(t);
      boolean kept = keptAfter == null || x.occurredAt().isAfter(keptAfter);
      if (x != r && applied && x.merchant() == r.merchant() && inRange && arrivedBefore && kept) {
        spend = spend.add(x.amount());
        count++;
      }
    }
    return new double[] {spend.doubleValue(), count};
  }

  /** The nearest-rank percentile {@code q} (0–100) of {@code values}, in their unit. */
  static long percentile(List<Long> values, double q) {
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int rank = (int) Math.ceil(q / 100.0 * sorted.size());
    return sorted.get(Math.max(0, rank - 1));
  }
}
