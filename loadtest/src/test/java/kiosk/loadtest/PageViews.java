package kiosk.loadtest;

import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.group;
import static io.gatling.javaapi.core.CoreDsl.responseTimeInMillis;
import static io.gatling.javaapi.http.HttpDsl.header;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

import io.gatling.commons.stats.KO$;
import io.gatling.commons.stats.OK$;
import io.gatling.commons.stats.Status;
import io.gatling.commons.util.Clock;
import io.gatling.core.stats.StatsEngine;
import io.gatling.javaapi.core.ActionBuilder;
import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.Session;
import scala.Option;

/**
 * Page requests reported by render mode. Kiosk answers a page with {@code X-Render-Mode: ssr}
 * (server-rendered) or {@code shell} (the overload fallback), and the report must split the two.
 * A Gatling request is named before it is sent, so the page request itself is silent and this
 * class reports it once its answer is known: inside a group named for the step (so the group's
 * row has the step's percentiles and bands, all modes together), as a request named by the mode
 * ({@link #SSR}, {@link #SHELL}, another value such as "shed", or {@link #NO_MODE} when the
 * header is missing), with Gatling's own response time, and KO unless the status is 200.
 *
 * <p>Reporting needs the run's StatsEngine, which the Java DSL does not expose: {@link #attach()}
 * is an action that keeps it (and the clock) and removes itself from the chain. This leans on
 * Gatling's Scala internals (io.gatling.core), pinned by the Gatling version in pom.xml; the
 * load test's own test (tools/loadtest/loadtest.services.test.ts) fails if a Gatling upgrade
 * breaks it.
 */
public final class PageViews {
  public static final String SSR = "ssr";
  public static final String SHELL = "shell";
  public static final String NO_MODE = "no X-Render-Mode";

  private static final String STATUS = "kiosk.status";
  private static final String MODE = "kiosk.renderMode";
  private static final String RESPONSE_TIME = "kiosk.responseTimeMs";
  private static final String SENT_AT = "kiosk.sentAt";
  /** The last page's render mode, for scenarios that act on it (a shell loads its data from /api). */
  public static final String LAST_MODE = "kiosk.lastRenderMode";

  private volatile StatsEngine statsEngine;
  private volatile Clock clock;

  /** Put once at the start of every scenario that uses {@link #page}. */
  public ActionBuilder attach() {
    io.gatling.core.action.builder.ActionBuilder keep =
        new io.gatling.core.action.builder.ActionBuilder() {
          @Override
          public io.gatling.core.action.Action build(
              io.gatling.core.structure.ScenarioContext ctx, io.gatling.core.action.Action next) {
            statsEngine = ctx.coreComponents().statsEngine();
            clock = ctx.coreComponents().clock();
            return next;
          }
        };
    return () -> keep;
  }

  /**
   * One page view of the HTML page at {@code path} (Gatling EL, e.g. {@code #{path}}), reported in
   * the group {@code step}.
   */
  public ChainBuilder page(String step, String path) {
    return exec(session -> session.markAsSucceeded().removeAll(STATUS, MODE, RESPONSE_TIME).set(SENT_AT, now()))
        .exec(
            group(step)
                .on(
                    exec(
                            http(step)
                                .get(path)
                                .silent()
                                .check(
                                    status().saveAs(STATUS),
                                    header("X-Render-Mode").optional().saveAs(MODE),
                                    responseTimeInMillis().saveAs(RESPONSE_TIME)))
                        .exec(this::report)));
  }

  private long now() {
    Clock c = clock;
    return c != null ? c.nowMillis() : System.currentTimeMillis();
  }

  private Session report(Session session) {
    long end = now();
    Integer status = session.getIntegerWrapper(STATUS);
    Integer responseTime = session.getIntegerWrapper(RESPONSE_TIME);
    String mode = session.getString(MODE);
    // Without an answer (refused, reset, timed out) no check ran: time it from when the user set
    // out, which also counts any wait for the throttle, so it can only overstate.
    long start = responseTime != null ? end - responseTime : session.getLong(SENT_AT);
    boolean ok = status != null && status == 200;
    // Any other mode the server names (its 503 under overload says "shed") is reported as named.
    String name = mode == null || mode.isBlank() ? NO_MODE : mode.replaceAll("[^\\w.-]", "_");
    String message =
        status == null ? "no response (connection failed or timed out)" : ok ? null : "status " + status + ", expected 200";
    Status outcome = ok ? OK$.MODULE$ : KO$.MODULE$;
    statsEngine.logResponse(
        session.scenario(),
        session.asScala().groups(),
        name,
        start,
        end,
        outcome,
        status == null ? Option.empty() : Option.apply(Integer.toString(status)),
        Option.apply(message));
    io.gatling.core.session.Session updated = session.asScala().logGroupRequestTimings(start, end);
    return new Session(ok ? updated : updated.markAsFailed()).set(LAST_MODE, name);
  }
}
