import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import controllers.PlayAgent;
import controllers.TD.ntuple2.NTuple2;
import controllers.TD.ntuple2.NTupleBase;
import games.Arena;
import games.GameBoard;
import games.StateObservation;
import games.XArenaButtons;
import params.ParNT;
import params.ParOther;
import params.ParTD;
import starters.SetupGBG;

/**
 * Training speed of one GBG agent, for farl's benchmarks/vs_gbg.py.
 *
 * <p>Builds the agent the way GBG's batch training does (load the agent file into the arena's parameter
 * tabs, then construct a fresh agent from them). A throwaway agent first trains for {@code jit_seconds} of CPU
 * time so the JIT has compiled the hot paths; then a fresh agent plays {@code warmup} self-play training games
 * (the same count farl plays before its timing) and the next {@code games} calls of GBG's {@code trainAgent}
 * are timed, with no evaluation in between. The CPU time is that of this (the training) thread, from {@link ThreadMXBean};
 * the JVM's whole-process CPU time (JIT compiler and GC threads included) is reported beside it.
 *
 * <p>Usage (working directory: the GBG checkout, so GBG finds its {@code agents/} folder):
 * <pre>java -Djava.awt.headless=true -cp CLASSES TrainSpeed GAME AGENT_FILE MAX_GAME_NUM WARMUP GAMES [KEY=VALUE ...]</pre>
 * {@code MAX_GAME_NUM} is the run length the alpha and epsilon schedules run over ({@code -1}: the agent file's).
 * {@code jit_seconds=S} sets the JIT warm-up on the throwaway agent (default 0);
 * {@code scapar=A,B,C} gives GBG's scalable game parameters (Hex: board size; Nim: heaps, heap size, max take);
 * the other keys override a setting of the agent file before the agent is built: {@code alpha}, {@code alpha_final},
 * {@code epsilon}, {@code epsilon_final}, {@code sigmoid}, {@code tcl}, {@code tcl_exp}, {@code ntuple_random},
 * {@code ntuple_fixed_mode}.
 * Prints one JSON object on the last line of standard output.
 *
 * <p>Written for farl; it only calls GBG's public API and contains no GBG code.
 */
public final class TrainSpeed {

    private TrainSpeed() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 5) {
            System.err.println("usage: TrainSpeed GAME AGENT_FILE MAX_GAME_NUM WARMUP GAMES [KEY=VALUE ...]");
            System.exit(2);
        }
        String game = args[0];
        String agentFile = args[1];
        int maxGameNum = Integer.parseInt(args[2]);
        int warmup = Integer.parseInt(args[3]);
        int games = Integer.parseInt(args[4]);
        String[] scaPar = SetupGBG.setDefaultScaPars(game);
        Map<String, String> overrides = new LinkedHashMap<>();
        double jitSeconds = 0.0;
        for (int i = 5; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            if (eq < 1) {
                System.err.println("expected KEY=VALUE, got " + args[i]);
                System.exit(2);
            }
            String key = args[i].substring(0, eq);
            String value = args[i].substring(eq + 1);
            if (key.equals("jit_seconds")) {
                jitSeconds = Double.parseDouble(value);
            } else if (key.equals("scapar")) {
                String[] parts = value.split(",");
                System.arraycopy(parts, 0, scaPar, 0, Math.min(parts.length, scaPar.length));
            } else {
                overrides.put(key, value);
            }
        }

        Arena arena = SetupGBG.setupSelectedGame(game, scaPar, "", false, true);
        if (!arena.loadAgent(0, agentFile)) {
            System.err.println("could not load agent file " + agentFile);
            System.exit(1);
        }
        XArenaButtons xab = arena.m_xab;
        if (maxGameNum > 0) {
            xab.setGameNumber(maxGameNum);  // before constructing: the agent reads its schedules' length from here
        }
        for (Map.Entry<String, String> e : overrides.entrySet()) {
            override(xab, e.getKey(), e.getValue());
        }
        GameBoard gb = arena.getGameBoard();
        maxGameNum = xab.getGameNumber();
        boolean randomStart = xab.oPar[0].getChooseStart01();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();

        // JIT warm-up on a throwaway agent until this thread has spent jitSeconds of CPU time in training,
        // so the measured agent below runs compiled code from its first game on
        long jitGames = 0;
        PlayAgent throwaway = freshAgent(arena, gb, maxGameNum);
        long jitStart = mx.getCurrentThreadCpuTime();
        while (mx.getCurrentThreadCpuTime() - jitStart < (long) (jitSeconds * 1e9)) {
            throwaway.trainAgent(startState(gb, throwaway, randomStart));
            jitGames++;
        }
        throwaway = null;

        PlayAgent pa = freshAgent(arena, gb, maxGameNum);
        for (int g = 0; g < warmup; g++) {
            pa.trainAgent(startState(gb, pa, randomStart));
        }
        // a full collection now, so the one-time move of the new agent's tables into the old generation (seconds
        // of GC for 2048's 1.6 GB) and the throwaway agent's garbage do not fall into the timed games
        System.gc();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long moves0 = pa.getNumTrnMoves();
        long proc0 = os.getProcessCpuTime();
        long wall0 = System.nanoTime();
        long cpu0 = mx.getCurrentThreadCpuTime();
        for (int g = 0; g < games; g++) {
            pa.trainAgent(startState(gb, pa, randomStart));
        }
        long cpu1 = mx.getCurrentThreadCpuTime();
        long wall1 = System.nanoTime();
        long proc1 = os.getProcessCpuTime();
        long moves1 = pa.getNumTrnMoves();

        ParTD td = xab.tdPar[0];
        ParNT nt = xab.ntPar[0];
        ParOther op = xab.oPar[0];
        StringBuilder js = new StringBuilder("{");
        field(js, "game", quote(game));
        field(js, "agent_file", quote(agentFile));
        field(js, "agent", quote(xab.getSelectedAgent(0)));
        field(js, "jit_seconds", num(jitSeconds));
        field(js, "jit_games", Long.toString(jitGames));
        field(js, "warmup", Integer.toString(warmup));
        field(js, "games", Integer.toString(games));
        field(js, "thread_cpu_s", num((cpu1 - cpu0) / 1e9));
        field(js, "process_cpu_s", num((proc1 - proc0) / 1e9));
        field(js, "wall_s", num((wall1 - wall0) / 1e9));
        field(js, "moves", Long.toString(moves1 - moves0));
        field(js, "max_game_num", Integer.toString(maxGameNum));
        field(js, "alpha", num(td.getAlpha()));
        field(js, "alpha_final", num(td.getAlphaFinal()));
        field(js, "epsilon", num(td.getEpsilon()));
        field(js, "epsilon_final", num(td.getEpsilonFinal()));
        field(js, "lambda", num(td.getLambda()));
        field(js, "horizon_cut", num(td.getHorizonCut()));
        field(js, "elig_mode", Integer.toString(td.getEligMode()));
        field(js, "overrides", quote(overrides.toString()));
        field(js, "sigmoid", Boolean.toString(td.hasSigmoid()));
        field(js, "tcl", Boolean.toString(nt.getTc()));
        field(js, "tcl_exp", Boolean.toString(nt.getTcTransferMode() == 1));
        field(js, "tcl_beta", num(nt.getTcBeta()));
        field(js, "tcl_init", num(nt.getTcInit()));
        field(js, "ntuple_fixed_mode", Integer.toString(nt.getFixedNtupleMode()));
        field(js, "ntuple_random", Boolean.toString(nt.getRandomness()));
        field(js, "ntuples", quote(describeTuples(pa, gb.getStateObs().getNumPlayers())));
        field(js, "symmetry", Boolean.toString(nt.getUSESYMMETRY()));
        field(js, "n_sym", Integer.toString(nt.getNSym()));
        field(js, "afterstate", Boolean.toString(nt.getAFTERSTATE()));
        field(js, "learn_from_random_moves", Boolean.toString(op.getLearnFromRM()));
        field(js, "choose_start_01", Boolean.toString(randomStart));
        field(js, "descr", quote(pa.stringDescr() + " | " + pa.stringDescr2()));
        js.setLength(js.length() - 2);
        js.append('}');
        System.out.println(js);
        System.exit(0);  // GBG may leave non-daemon threads behind
    }

    /** The n-tuple set the agent trains, as "count x length" (one table set per player in GBG's TD agents). */
    private static String describeTuples(PlayAgent pa, int numPlayers) {
        if (!(pa instanceof NTupleBase nb)) {
            return "?";
        }
        NTuple2[] all = nb.getNTupleValueFunc().getNTuples();
        Map<Integer, Integer> byLength = new TreeMap<>();
        for (int i = 0; i < all.length; i += numPlayers) {
            byLength.merge(all[i].getLength(), 1, Integer::sum);
        }
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<Integer, Integer> e : byLength.entrySet()) {
            sb.append(sb.length() > 0 ? " + " : "").append(e.getValue()).append(" x ").append(e.getKey());
        }
        return sb.toString();
    }

    /** Sets one agent setting in the arena's parameter tabs (read by {@code constructAgent}). */
    private static void override(XArenaButtons xab, String key, String value) {
        ParTD td = xab.tdPar[0];
        ParNT nt = xab.ntPar[0];
        switch (key) {
            case "alpha" -> td.setAlpha(Double.parseDouble(value));
            case "alpha_final" -> td.setAlphaFinal(Double.parseDouble(value));
            case "epsilon" -> td.setEpsilon(Double.parseDouble(value));
            case "epsilon_final" -> td.setEpsilonFinal(Double.parseDouble(value));
            case "sigmoid" -> td.setSigmoid(Boolean.parseBoolean(value));
            case "tcl" -> nt.setTc(Boolean.parseBoolean(value));
            case "tcl_exp" -> nt.setTcTransferMode(Boolean.parseBoolean(value) ? 1 : 0);
            case "ntuple_random" -> nt.setRandomness(Boolean.parseBoolean(value));
            case "ntuple_fixed_mode" -> nt.setFixedNtupleMode(Integer.parseInt(value));
            default -> {
                System.err.println("unknown setting " + key);
                System.exit(2);
            }
        }
    }

    /** A fresh, untrained agent with the arena's settings, built as GBG's multi-training builds it. */
    private static PlayAgent freshAgent(Arena arena, GameBoard gb, int maxGameNum) {
        XArenaButtons xab = arena.m_xab;
        String agentName = xab.getSelectedAgent(0);
        PlayAgent pa = arena.m_xfun.constructAgent(0, agentName, xab);
        if (pa == null) {
            System.err.println("could not construct agent " + agentName);
            System.exit(1);
        }
        pa = arena.m_xfun.wrapAgentTrain(pa, xab.oPar[0], xab.wrPar[0], xab.maxnPar[0], gb.getDefaultStartState(null));
        pa.setWrapperParamsO(xab.oPar[0]);
        pa.setMaxGameNum(maxGameNum);
        pa.setGameNum(0);
        gb.initialize();
        return pa;
    }

    /** The start state of a training game, chosen as GBG's multi-training chooses it. */
    private static StateObservation startState(GameBoard gb, PlayAgent pa, boolean randomStart) {
        return randomStart ? gb.chooseStartState(pa) : gb.getDefaultStartState(null);
    }

    private static void field(StringBuilder js, String key, String value) {
        js.append('"').append(key).append("\": ").append(value).append(", ");
    }

    private static String num(double x) {
        return String.format(Locale.ROOT, "%.6g", x);
    }

    private static String quote(String s) {
        return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", " ") + '"';
    }
}
