import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

import controllers.PlayAgent;
import controllers.TD.ntuple2.NTuple2;
import controllers.TD.ntuple2.NTupleBase;
import controllers.TD.ntuple2.TDNTuple3Agt;
import controllers.TD.ntuple2.NTuple2ValueFunc;
import controllers.TD.ntuple4.NTuple4;
import controllers.TD.ntuple4.NTuple4Base;
import controllers.TD.ntuple4.NTuple4ValueFunc;
import controllers.TD.ntuple4.TDNTuple4Agt;
import games.Arena;
import games.BoardVector;
import games.EWN.StateObserverEWN;
import games.EWN.StateObserverHelper.Token;
import games.GameBoard;
import games.Sim.StateObserverSim;
import games.StateObsWithBoardVector;
import games.StateObservation;
import games.XNTupleFuncs;
import games.Yavalath.StateObserverYavalath;
import games.Yavalath.TileYavalath;
import params.ParNT;
import params.ParTD;
import starters.SetupGBG;
import tools.Types;

/**
 * Writes one GBG n-tuple agent as plain data, for farl's studies/gbg_agents.
 *
 * <p>Loads the agent file with GBG's own loader (the arena's {@code loadAgent}), then writes
 * <ul>
 * <li>{@code OUT.json}: the agent's class and settings, the n-tuples (cell lists of player 0's tables; every
 *     player's tables read the same cells), the radix of every tuple digit, the lengths of the look-up tables,
 *     and a sample of afterstates from random play with GBG's value of each for every player;</li>
 * <li>{@code OUT.f64}: the look-up tables, little-endian float64, player by player, tuple by tuple
 *     (output 0 only: TD agents have one output).</li>
 * </ul>
 * A sample is the afterstate a random move makes (only afterstates of games that go on: GBG rates a finished
 * position 0 without its tables), as GBG's board vector, as the game's own state (Sim: every edge's owner;
 * Yavalath: every cell's stone; EWN: every square's token player and number, -1 when empty), the player who
 * made it, GBG's value {@code getScoreI(board, p)} for every player p, and the same sum with the board alone
 * (no symmetric boards: for games whose symmetric boards GBG draws at random, Sim).
 *
 * <p>Usage (working directory: the GBG checkout):
 * <pre>java -Djava.awt.headless=true -cp CLASSES GbgExport GAME AGENT_FILE OUT SAMPLES SEED [SCAPAR;SCAPAR;...]</pre>
 * {@code SCAPAR} are GBG's scalable game parameters separated by ';' (Sim: {@code 2;6;None}; Yavalath:
 * {@code 2;5}; EWN: {@code 5x5 2-Player;[0,..,n];False}).
 * Prints one line of JSON (the summary without samples) on standard output.
 *
 * <p>Written for farl; it only calls GBG's public API and contains no GBG code.
 */
public final class GbgExport {

    private GbgExport() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 5) {
            System.err.println("usage: GbgExport GAME AGENT_FILE OUT SAMPLES SEED [SCAPAR;SCAPAR;...]");
            System.exit(2);
        }
        String game = args[0];
        String agentFile = args[1];
        String out = args[2];
        int samples = Integer.parseInt(args[3]);
        long seed = Long.parseLong(args[4]);
        String[] scaPar = SetupGBG.setDefaultScaPars(game);
        if (args.length > 5) {
            String[] parts = args[5].split(";");
            System.arraycopy(parts, 0, scaPar, 0, Math.min(parts.length, scaPar.length));
        }
        Arena arena = SetupGBG.setupSelectedGame(game, scaPar, "", false, true);
        if (!arena.loadAgent(0, agentFile)) {
            System.err.println("could not load agent file " + agentFile);
            System.exit(1);
        }
        PlayAgent pa = arena.m_xfun.m_PlayAgents[0];
        GameBoard gb = arena.getGameBoard();
        int numPlayers = gb.getStateObs().getNumPlayers();

        Net net = Net.of(pa);
        if (net == null) {
            System.err.println("not an n-tuple TD agent: " + pa.getClass().getName());
            System.exit(3);
        }

        // ---- tables
        List<int[]> tuples = new ArrayList<>();
        List<int[]> radix = new ArrayList<>();
        List<Integer> lutLength = new ArrayList<>();
        try (DataOutputStream lut = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(out + ".f64")))) {
            ByteBuffer buf = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            for (int p = 0; p < numPlayers; p++) {
                for (int i = 0; i < net.numTuples(); i++) {
                    int[] cells = net.cells(p, i);
                    if (p == 0) {
                        tuples.add(cells);
                        radix.add(net.radix(p, i));
                        lutLength.add(net.weights(p, i).length);
                    } else if (!java.util.Arrays.equals(cells, tuples.get(i))) {
                        System.err.println("player " + p + " reads other cells in tuple " + i);
                        System.exit(4);
                    }
                    for (double w : net.weights(p, i)) {
                        buf.clear();
                        buf.putDouble(w);
                        lut.write(buf.array());
                    }
                }
            }
        }

        // ---- sample positions
        XNTupleFuncs xnf = net.xnf();
        Random rng = new Random(seed);
        StringBuilder sj = new StringBuilder("[");
        int found = 0;
        int gamesPlayed = 0;
        while (found < samples && gamesPlayed < 100 * samples) {
            gamesPlayed++;
            StateObservation so = gb.getDefaultStartState(null);
            if (so instanceof StateObserverEWN ewn) {
                ewn.reset(rng);  // the start's die roll from this seed (GBG's default start rolls its own)
            }
            if (!so.isNextActionDeterministic()) {
                so.advanceNondeterministic(rng);
            }
            while (!so.isGameOver() && found < samples) {
                List<Types.ACTIONS> acts = so.getAvailableActions();
                Types.ACTIONS act = acts.get(rng.nextInt(acts.size()));
                StateObservation after = so.copy();
                int mover = so.getPlayer();
                after.advanceDeterministic(act);
                if (!after.isGameOver() && rng.nextDouble() < 0.35) {
                    if (found > 0) {
                        sj.append(",\n");
                    }
                    sj.append(sample(after, mover, act, net, xnf, numPlayers));
                    found++;
                }
                if (!after.isGameOver() && !after.isNextActionDeterministic()) {
                    after.advanceNondeterministic(rng);
                }
                so = after;
            }
        }
        sj.append("]");

        ParTD td = net.parTD();
        ParNT nt = net.parNT();
        StringBuilder js = new StringBuilder("{");
        field(js, "game", quote(game));
        field(js, "agent_file", quote(agentFile));
        field(js, "agent_class", quote(pa.getClass().getName()));
        field(js, "agent_name", quote(pa.getName()));
        field(js, "scapar", quote(String.join(";", scaPar)));
        field(js, "num_players", Integer.toString(numPlayers));
        field(js, "num_cells", Integer.toString(xnf.getNumCells()));
        field(js, "num_position_values", Integer.toString(xnf.getNumPositionValues()));
        field(js, "xnf_num_symmetries", Integer.toString(xnf.getNumSymmetries()));
        field(js, "sigmoid", Boolean.toString(net.sigmoid()));
        field(js, "use_symmetry", Boolean.toString(nt.getUSESYMMETRY()));
        field(js, "n_sym", Integer.toString(nt.getNSym()));
        field(js, "afterstate", Boolean.toString(nt.getAFTERSTATE()));
        field(js, "ntuple_random", Boolean.toString(nt.getRandomness()));
        field(js, "ntuple_random_walk", Boolean.toString(nt.getRandomWalk()));
        field(js, "ntuple_fixed_mode", Integer.toString(nt.getFixedNtupleMode()));
        field(js, "ntuple_number", Integer.toString(nt.getNtupleNumber()));
        field(js, "ntuple_max", Integer.toString(nt.getNtupleMax()));
        field(js, "tcl", Boolean.toString(nt.getTc()));
        field(js, "tcl_exp", Boolean.toString(nt.getTcTransferMode() == 1));
        field(js, "alpha", num(td.getAlpha()));
        field(js, "alpha_final", num(td.getAlphaFinal()));
        field(js, "epsilon", num(td.getEpsilon()));
        field(js, "epsilon_final", num(td.getEpsilonFinal()));
        field(js, "gamma", num(td.getGamma()));
        field(js, "lambda", num(td.getLambda()));
        field(js, "horizon_cut", num(td.getHorizonCut()));
        field(js, "choose_start_01", Boolean.toString(pa.getParOther().getChooseStart01()));
        field(js, "learn_from_rm", Boolean.toString(pa.getParOther().getLearnFromRM()));
        field(js, "game_num", Integer.toString(pa.getGameNum()));
        field(js, "max_game_num", Integer.toString(pa.getMaxGameNum()));
        field(js, "num_trn_moves", Long.toString(pa.getNumTrnMoves()));
        field(js, "descr", quote(pa.stringDescr() + " | " + pa.stringDescr2()));
        field(js, "tuples", intLists(tuples));
        field(js, "radix", intLists(radix));
        field(js, "lut_length", lutLength.toString());
        field(js, "symmetries_used", symmetries(xnf, nt));
        String head = js.toString();
        try (PrintWriter w = new PrintWriter(out + ".json", StandardCharsets.UTF_8)) {
            w.print(head);
            w.print("\"samples_games\": " + gamesPlayed + ", \"samples\": ");
            w.print(sj);
            w.println("}");
        }
        System.out.println(head.substring(0, head.length() - 2).replaceAll("\"tuples\": \\[.*", "\"samples\": "
                + found + "}"));
        System.exit(0);  // GBG may leave non-daemon threads behind
    }

    /**
     * The symmetric boards GBG's value sums over, as cell permutations: board j holds at cell i the value of cell
     * {@code perm[j][i]} (the boards of the board vector 0, 1, ..., n-1). Only the identity when the agent uses
     * no symmetry; null when the game draws its symmetric boards at random (Sim).
     */
    private static String symmetries(XNTupleFuncs xnf, ParNT nt) {
        int n = xnf.getNumCells();
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
            ids[i] = i;
        }
        if (!nt.getUSESYMMETRY()) {
            return "[" + ints(ids) + "]";
        }
        int used = nt.getNSym() == 0 ? xnf.getNumSymmetries() : nt.getNSym();
        try {
            BoardVector[] boards = xnf.symmetryVectors(new BoardVector(ids), used);
            List<int[]> rows = new ArrayList<>();
            for (BoardVector b : boards) {
                rows.add(b.bvec);
            }
            return intLists(rows);
        } catch (RuntimeException e) {
            return "null";
        }
    }

    /** One sample afterstate as JSON. */
    private static String sample(StateObservation after, int mover, Types.ACTIONS act, Net net, XNTupleFuncs xnf,
                                 int numPlayers) {
        StateObsWithBoardVector sowb = new StateObsWithBoardVector(after, xnf);
        int[] bvec = sowb.getBoardVector().bvec;
        StringBuilder s = new StringBuilder("{");
        field(s, "mover", Integer.toString(mover));
        field(s, "action", Integer.toString(act.toInt()));
        field(s, "bvec", ints(bvec));
        field(s, "state", rawState(after));
        StringBuilder v = new StringBuilder("[");
        StringBuilder v2 = new StringBuilder("[");
        StringBuilder v0 = new StringBuilder("[");
        for (int p = 0; p < numPlayers; p++) {
            double alone = 0.0;
            for (int i = 0; i < net.numTuples(); i++) {
                alone += net.score(p, i, bvec);
            }
            if (net.sigmoid()) {
                alone = Math.tanh(alone);
            }
            String sep = p > 0 ? ", " : "";
            v.append(sep).append(num17(net.value(sowb, p)));
            v2.append(sep).append(num17(net.value(sowb, p)));
            v0.append(sep).append(num17(alone));
        }
        field(s, "values", v.append("]").toString());
        field(s, "values_again", v2.append("]").toString());
        field(s, "values_board_alone", v0.append("]").toString());
        if (after instanceof StateObserverEWN ewn && xnf.getNumPositionValues() == 3 * numPlayers + 1) {
            int[] old = ewnCoding1Of2021(ewn, numPlayers);
            StringBuilder v1 = new StringBuilder("[");
            for (int p = 0; p < numPlayers; p++) {
                double sum = 0.0;
                for (int i = 0; i < net.numTuples(); i++) {
                    sum += net.score(p, i, old);
                }
                v1.append(p > 0 ? ", " : "").append(num17(net.sigmoid() ? Math.tanh(sum) : sum));
            }
            field(s, "values_coding1_of_2021", v1.append("]").toString());
        }
        s.setLength(s.length() - 2);
        return s.append("}").toString();
    }

    /**
     * EWN's board vector in cell coding 1 as GBG wrote it in October 2021 (when the stored 5x5 "G-0-1-2" agents
     * were saved): an empty square is N (the number of players), a token of player k with value v (0-5) is
     * 3k + (v &lt; 3 ? 0 : v &lt; 4 ? 1 : 2) on boards of 5x5 and more, and k on smaller boards. Today's GBG codes
     * empty as 3N and groups the values (0,1), (2,3), (4,5).
     */
    private static int[] ewnCoding1Of2021(StateObserverEWN ewn, int numPlayers) {
        Token[][] gs = ewn.getGameState();
        int[] v = new int[gs.length * gs.length];
        for (int i = 0, n = 0; i < gs.length; i++) {
            for (int j = 0; j < gs[i].length; j++, n++) {
                int player = gs[i][j].getPlayer();
                int value = gs[i][j].getValue();
                if (player < 0) {
                    v[n] = numPlayers;
                } else if (gs.length > 4) {
                    v[n] = player * 3 + (value < 3 ? 0 : value < 4 ? 1 : 2);
                } else {
                    v[n] = player;
                }
            }
        }
        return v;
    }

    /** The game's own description of a position (not GBG's board vector). */
    private static String rawState(StateObservation so) {
        if (so instanceof StateObserverSim sim) {
            List<Integer> owner = new ArrayList<>();
            for (int i = 0; i < sim.getNumNodes(); i++) {
                for (int j = i + 1; j < sim.getNumNodes(); j++) {
                    owner.add(sim.getLinkFromTo(i, j));
                }
            }
            return "{\"edges\": " + owner + "}";
        }
        if (so instanceof StateObserverYavalath yav) {
            TileYavalath[][] board = yav.getGameBoard();
            StringBuilder s = new StringBuilder("{\"swap_used\": " + yav.swapRuleUsed() + ", \"tiles\": [");
            boolean first = true;
            for (int i = 0; i < board.length; i++) {
                for (int j = 0; j < board[i].length; j++) {
                    int pl = board[i][j].getPlayer();
                    if (pl == -2) {
                        continue;  // outside the hexagon
                    }
                    s.append(first ? "" : ", ").append("[").append(i).append(", ").append(j).append(", ")
                            .append(pl).append("]");
                    first = false;
                }
            }
            return s.append("]}").toString();
        }
        if (so instanceof StateObserverEWN ewn) {
            Token[][] gs = ewn.getGameState();
            StringBuilder s = new StringBuilder("{\"squares\": [");
            for (int i = 0; i < gs.length; i++) {
                for (int j = 0; j < gs[i].length; j++) {
                    s.append(i + j > 0 ? ", " : "").append("[").append(gs[i][j].getPlayer()).append(", ")
                            .append(gs[i][j].getValue()).append("]");
                }
            }
            return s.append("]}").toString();
        }
        return "null";
    }

    /** The two kinds of GBG n-tuple network behind one interface. */
    private interface Net {
        int numTuples();

        int[] cells(int player, int tuple);

        int[] radix(int player, int tuple);

        double[] weights(int player, int tuple);

        double score(int player, int tuple, int[] bvec);

        double value(StateObsWithBoardVector sowb, int player);

        boolean sigmoid();

        XNTupleFuncs xnf();

        ParTD parTD();

        ParNT parNT();

        /** The network of a TD n-tuple agent (one output), or null for any other agent (SARSA, Q, MCTS...). */
        static Net of(PlayAgent pa) {
            if (pa instanceof TDNTuple3Agt nb) {
                NTuple2ValueFunc f = nb.getNTupleValueFunc();
                return new Net2(nb, f, f.getNTuples(), (int) f.getNumPlayers());
            }
            if (pa instanceof TDNTuple4Agt nb) {
                NTuple4ValueFunc f = nb.getNTupleValueFunc();
                return new Net4(nb, f, f.getNTuples(), (int) f.getNumPlayers());
            }
            return null;
        }
    }

    /** getNTuples() lists tuple by tuple, player by player, output by output; TD agents have one output. */
    private record Net2(NTupleBase agent, NTuple2ValueFunc f, NTuple2[] all, int np) implements Net {
        public int numTuples() {
            return all.length / np;
        }

        public int[] cells(int player, int tuple) {
            NTuple2 t = all[tuple * np + player];
            int[] c = new int[t.getLength()];
            for (int k = 0; k < c.length; k++) {
                c[k] = t.getPosition(k);
            }
            return c;
        }

        public int[] radix(int player, int tuple) {
            NTuple2 t = all[tuple * np + player];
            int[] r = new int[t.getLength()];
            java.util.Arrays.fill(r, t.getPosVals());
            return r;
        }

        public double[] weights(int player, int tuple) {
            return all[tuple * np + player].getWeights();
        }

        public double score(int player, int tuple, int[] bvec) {
            return all[tuple * np + player].getScore(bvec);
        }

        public double value(StateObsWithBoardVector sowb, int player) {
            return f.getScoreI(sowb, player);
        }

        public boolean sigmoid() {
            return f.hasSigmoid();
        }

        public XNTupleFuncs xnf() {
            return f.getXnf();
        }

        public ParTD parTD() {
            return agent.getParTD();
        }

        public ParNT parNT() {
            return agent.getParNT();
        }
    }

    private record Net4(NTuple4Base agent, NTuple4ValueFunc f, NTuple4[] all, int np) implements Net {
        public int numTuples() {
            return all.length / np;
        }

        public int[] cells(int player, int tuple) {
            NTuple4 t = all[tuple * np + player];
            int[] c = new int[t.getLength()];
            for (int k = 0; k < c.length; k++) {
                c[k] = t.getPosition(k);
            }
            return c;
        }

        public int[] radix(int player, int tuple) {
            NTuple4 t = all[tuple * np + player];
            int[] r = new int[t.getLength()];
            for (int k = 0; k < r.length; k++) {
                r[k] = t.getPosVals(t.getPosition(k));
            }
            return r;
        }

        public double[] weights(int player, int tuple) {
            return all[tuple * np + player].getWeights();
        }

        public double score(int player, int tuple, int[] bvec) {
            return all[tuple * np + player].getScore(bvec);
        }

        public double value(StateObsWithBoardVector sowb, int player) {
            return f.getScoreI(sowb, player);
        }

        public boolean sigmoid() {
            return f.hasSigmoid();
        }

        public XNTupleFuncs xnf() {
            return f.getXnf();
        }

        public ParTD parTD() {
            return agent.getParTD();
        }

        public ParNT parNT() {
            return agent.getParNT();
        }
    }

    private static void field(StringBuilder js, String key, String value) {
        js.append('"').append(key).append("\": ").append(value).append(", ");
    }

    private static String ints(int[] a) {
        StringBuilder s = new StringBuilder("[");
        for (int i = 0; i < a.length; i++) {
            s.append(i > 0 ? ", " : "").append(a[i]);
        }
        return s.append("]").toString();
    }

    private static String intLists(List<int[]> rows) {
        StringBuilder s = new StringBuilder("[");
        for (int i = 0; i < rows.size(); i++) {
            s.append(i > 0 ? ", " : "").append(ints(rows.get(i)));
        }
        return s.append("]").toString();
    }

    private static String num(double x) {
        return String.format(Locale.ROOT, "%.6g", x);
    }

    private static String num17(double x) {
        return Double.toString(x);
    }

    private static String quote(String s) {
        return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", " ") + '"';
    }
}
