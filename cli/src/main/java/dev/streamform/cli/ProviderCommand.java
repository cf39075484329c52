package dev.streamform.cli;

import dev.streamform.core.text.Counts;
import dev.streamform.core.time.Durations;
import dev.streamform.sink.effects.LocalProviderServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code streamform provider}: the local effect provider for trying effects out and for demos — a
 * webhook with idempotency keys and receipt queries that counts what it applied per effect key, and
 * can be told to fail.
 */
@Command(
    name = "provider",
    header = "Runs the local effect provider, a webhook for trying effects out.",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the local effect provider on 127.0.0.1 until stopped (Ctrl-C): POST /effects applies an"
          + " effect and answers its receipt, unless its Idempotency-Key header was seen before:"
          + " then it applies nothing and answers that request's receipt again. What it applies,"
          + " counts and keeps a receipt for is the body's effect_key, not the header: GET"
          + " /effects/<effect_key> answers the first receipt of that effect key or 404 (never"
          + " applied); GET /effects answers the counts per effect key as JSON. Declare it as"
          + " provider: {kind: webhook, url: \"http://127.0.0.1:<port>/effects\", idempotency: key,"
          + " receipts: true}.",
      "Prints a line per applied effect. It can misbehave: --mode, --lose-answers, --no-dedupe"
          + " (apply a repeated Idempotency-Key again, so a second delivery of an effect is a"
          + " second effect: what a test of at-most-once needs to see one). GET /effects counts"
          + " per key the effects applied (applied), the deliveries (deliveries_per_key: requests"
          + " that reached the effect, applied or answered with the earlier receipt; what"
          + " streamform gates reads) and all requests (requests_per_key)."
    },
    exitCodeListHeading = "%nExit status:%n",
    exitCodeList = {"0:stopped", "1:the port could not be opened", "2:bad command line"})
final class ProviderCommand implements Callable<Integer> {

  @Option(
      names = "--port",
      paramLabel = "N",
      defaultValue = "8099",
      description = "the port on 127.0.0.1 (default: ${DEFAULT-VALUE}; 0: any free port)")
  int port;

  @Option(
      names = "--mode",
      paramLabel = "MODE",
      defaultValue = "ok",
      description =
          "ok, accept-then-drop (apply, lose the answer), fail-500 (apply nothing, answer 500),"
              + " timeout (answer nothing for --hang, then apply) (default: ${DEFAULT-VALUE})")
  String mode;

  @Option(
      names = "--lose-answers",
      paramLabel = "N",
      defaultValue = "0",
      description =
          "apply the next N deliveries but lose their answers, then behave as --mode (default:"
              + " ${DEFAULT-VALUE})")
  int loseAnswers;

  @Option(
      names = "--no-dedupe",
      description =
          "do not deduplicate by Idempotency-Key: every delivery is applied (and counted)")
  boolean noDedupe;

  @Option(
      names = "--hang",
      paramLabel = "DURATION",
      defaultValue = "2s",
      description = "how long --mode timeout stays silent (default: ${DEFAULT-VALUE})")
  String hang;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    LocalProviderServer.Mode chosen;
    try {
      chosen =
          LocalProviderServer.Mode.valueOf(mode.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(),
          "--mode must be ok, accept-then-drop, fail-500 or timeout, not '" + mode + "'");
    }
    if (port < 0 || port > 65535) {
      throw new ParameterException(spec.commandLine(), "--port must be 0..65535, not " + port);
    }
    if (loseAnswers < 0) {
      throw new ParameterException(
          spec.commandLine(), "--lose-answers must be 0 or more, not " + loseAnswers);
    }
    LocalProviderServer server;
    try {
      server = LocalProviderServer.start(port);
    } catch (IOException e) {
      err.println(
          "streamform provider: cannot listen on 127.0.0.1:"
              + port
              + ": "
              + e.getMessage()
              + " (another provider running? choose another --port)");
      return 1;
    }
    try {
      server.hang(Durations.parse(hang));
    } catch (IllegalArgumentException e) {
      server.close();
      throw new ParameterException(spec.commandLine(), "--hang: " + e.getMessage());
    }
    server.mode(chosen);
    server.loseAnswers(loseAnswers);
    server.dedupe(!noDedupe);
    server.onApplied(
        (key, receipt) -> {
          synchronized (out) {
            out.println(
                "applied "
                    + key
                    + " receipt "
                    + receipt
                    + " ("
                    + server.applied(key)
                    + " for this key, "
                    + server.requests(key)
                    + " requests)");
            out.flush();
          }
        });
    err.println(
        "streamform provider: listening on "
            + server.url()
            + " (mode "
            + mode
            + (noDedupe ? ", not deduplicating by Idempotency-Key" : "")
            + (loseAnswers > 0 ? ", losing the next " + loseAnswers + " answers" : "")
            + "); Ctrl-C stops it");
    err.flush();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  int twice =
                      (int) server.requestsPerKey().values().stream().filter(n -> n > 1).count();
                  err.println(
                      "streamform provider: "
                          + Counts.of(server.appliedPerKey().size(), "effect key")
                          + " applied, "
                          + Counts.of(server.requests(), "delivery", "deliveries")
                          + " received, "
                          + Counts.of(twice, "key")
                          + " delivered more than once");
                  err.flush();
                  server.close();
                  stopped.countDown();
                }));
    stopped.await();
    return 0;
  }
}
