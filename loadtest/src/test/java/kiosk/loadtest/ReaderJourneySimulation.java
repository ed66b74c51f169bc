package kiosk.loadtest;

import static io.gatling.javaapi.core.CoreDsl.constantUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.feed;
import static io.gatling.javaapi.core.CoreDsl.jsonPath;
import static io.gatling.javaapi.core.CoreDsl.rampUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.randomSwitch;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.core.CoreDsl.pause;
import static io.gatling.javaapi.core.CoreDsl.percent;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpRequestActionBuilder;
import java.time.Duration;

/**
 * Readers as the browser makes them: a reader lands on an article page (HTML, server-rendered or
 * the shell), then reads on in the browser, which fetches JSON from /api and renders it there:
 * the article's section (/api/sections/:slug), another article from that section
 * (/api/articles/:id) and, for 55% of readers, the front page (/api/front). That is 3 or 4 page
 * views, 3.55 per session on average, the newsroom's figure. A reader who got the shell first
 * loads that article's data from /api too ("shell: article", "shell: latest"), as the browser does.
 *
 * <pre>
 *   npm run loadtest -- --simulation journey --rps 100 --reach 30 --hold 5 --base-url http://localhost:3000
 *   ./mvnw gatling:test -Dgatling.simulationClass=kiosk.loadtest.ReaderJourneySimulation -Drps=100 ...
 * </pre>
 *
 * System properties:
 *   baseUrl      site origin (default http://localhost:3000)
 *   rps          page views per second to reach (default 100); readers arrive at rps / 3.55 per second
 *   reachInSec   ramp of arrivals from 0 to that rate, seconds (default 30)
 *   holdForMin   arrivals at that rate, minutes, fractions allowed (default 5); readers already
 *                on the site finish their sessions afterwards
 *   thinkMinSec, thinkMaxSec  reading time before the next page, uniform (default 5 to 20)
 *   urlFeed      CSV of article paths, file or classpath resource (default article-urls.csv)
 *   shareConnections  true: readers share one connection pool (default false: each its own)
 */
public class ReaderJourneySimulation extends Simulation {
  static final double PAGE_VIEWS_PER_SESSION = 3.55;

  private final double rps = Settings.positive("rps", 100);
  private final double reachInSec = Settings.positive("reachInSec", 30);
  private final double holdForMin = Settings.positive("holdForMin", 5);
  private final double thinkMinSec = Settings.atLeastZero("thinkMinSec", 5);
  private final double thinkMaxSec = Math.max(thinkMinSec, Settings.atLeastZero("thinkMaxSec", 20));
  private final PageViews pageViews = new PageViews();

  private static HttpRequestActionBuilder api(String name, String path) {
    return http(name).get(path).header("Accept", "application/json").check(status().is(200));
  }

  private ChainBuilder think() {
    return pause(Duration.ofMillis(Math.round(thinkMinSec * 1000)), Duration.ofMillis(Math.round(thinkMaxSec * 1000)));
  }

  private final ScenarioBuilder readers =
      scenario("Reader journey")
          .exec(pageViews.attach())
          .exec(feed(Site.articleFeed()))
          .exec(pageViews.page("landing page", "#{path}"))
          .doIf(session -> PageViews.SHELL.equals(session.getString(PageViews.LAST_MODE)))
          .then(exec(api("shell: article", "/api/articles/#{id}"), api("shell: latest", "/api/latest?limit=15")))
          .exec(think())
          .exec(
              api("api section", "/api/sections/#{section}")
                  .check(jsonPath("$.items[*].id").findRandom().saveAs("nextId")))
          .exec(think())
          .exec(api("api article", "/api/articles/#{nextId}"))
          // 3 page views for 45% of readers and 4 for 55%: 3.55 on average.
          .randomSwitch()
          .on(percent(55).then(exec(think()).exec(api("api front", "/api/front"))));

  {
    double sessionsPerSec = rps / PAGE_VIEWS_PER_SESSION;
    setUp(
            readers.injectOpen(
                rampUsersPerSec(0).to(sessionsPerSec).during(Duration.ofMillis(Math.round(reachInSec * 1000))),
                constantUsersPerSec(sessionsPerSec).during(Duration.ofMillis(Math.round(holdForMin * 60_000)))))
        .protocols(Site.protocol());
  }
}
