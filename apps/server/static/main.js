// @ts-check
// The page's start: the table (a game against the bot), its review, and the
// analysis board.  ES modules, no build step; each module one concern:
// api.js (the server's API and its payloads), dom.js (elements),
// vocabulary.js (the game's words, from GET /api), graph.js, table.js (drawing
// a game), last_move.js (what the bot did, marked on the table), dice.js (dice
// drawn as dice), dialogs.js (the page's confirmations), game.js (playing
// it), games_list.js (the other games kept on the server), review.js,
// reference.js (cards and rules one click away), board_model.js and
// board.js (the analysis board).

import { board } from "./board_model.js";
import { setupBoard } from "./board.js";
import { game, setupGame } from "./game.js";
import { setupGamesList } from "./games_list.js";
import { setupReference } from "./reference.js";
import { setupReview } from "./review.js";

// the game and the board, for the browser tests and the curious
Object.assign(window, { wildhorn: game, wildhornBoard: board });

setupGamesList();
setupGame();
setupReview();
setupBoard();
setupReference();
