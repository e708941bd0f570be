// @ts-check
// The client of the server's JSON API (GET /api lists the routes) and the
// shapes of what it answers, as JSDoc types.

/**
 * The game's words, served once by GET /api (solver/vocabulary.py, as_json).
 * @typedef {object} Vocabulary
 * @property {string[]} sides side names by player number: 0 Polish, 1 German
 * @property {string[]} side_titles the sides as a sentence names them
 * @property {[string, string][]} zones [zone, place name] by the core's zone number
 * @property {string[]} homes each side's home zone
 * @property {string[]} table_order the zones top to bottom as the table is drawn
 * @property {string} search_zone where a Search is made
 * @property {string[]} phases the engine's phases in order
 * @property {string[]} steps the steps a state file may name
 * @property {string[]} decision_steps the steps where a player decides
 * @property {string[]} chance_steps the steps where chance acts
 * @property {string[]} actor_steps the decision steps where the actor decides
 * @property {string[]} dice_steps the steps where the action under way has its dice
 * @property {string[]} pending_kinds the kinds of action that can be under way
 * @property {string[]} steal_kinds the steal as each side names it (by player number)
 * @property {string[]} ability_kinds the kinds whose acting card uses the ability of that name
 * @property {Record<string, string[]>} step_kinds the kinds each step allows (a step not listed: none)
 * @property {string[]} window_phases the reaction windows
 * @property {string[]} locations where a card can be
 * @property {[string, string][]} fragments [place, title] of the places fragments can be
 */

/**
 * A card as a game view shows it.
 * @typedef {object} Card
 * @property {string} number e.g. "PL04"
 * @property {string} name
 * @property {string} side
 * @property {string} kind unit, support, action, immediate
 * @property {number} bullets
 * @property {string[]} abilities
 * @property {string} text
 * @property {boolean} [exhausted] on the table only
 */

/**
 * @typedef {object} Zone
 * @property {string} id
 * @property {string} title
 * @property {string | null} home the side whose home it is
 * @property {number} fragments
 * @property {Record<string, Card[]>} cards by side
 */

/**
 * One legal action of the human side.
 * @typedef {object} Action
 * @property {number} id
 * @property {string} kind e.g. "pass", "decline", "play"
 * @property {string} text
 * @property {string} [verb] the text on a card's menu
 * @property {string} [help]
 * @property {string} [note]
 * @property {string} [card] the card acting
 * @property {string} [target] the card aimed at
 * @property {string[]} [same_as] identical cards the action stands for (R27)
 * @property {string} [zone] a destination
 */

/**
 * @typedef {object} Alternative
 * @property {string} action
 * @property {number} visits
 * @property {number | null} value
 *
 * @typedef {object} LogEntry
 * @property {string} who a side, or "game"
 * @property {string} [kind] what it tells (apps/narration.py's Kind): "decision", "roll", "draw"...
 * @property {string} text
 * @property {number} [value] the human's chance as the bot rated it
 * @property {Alternative[]} [alternatives] the bot's other candidates
 *
 * @typedef {object} Pending the action under way (an attack, a search...)
 * @property {string} kind
 * @property {string} actor the side acting
 * @property {string} text
 * @property {number[]} dice rolled so far
 * @property {number[]} modifiers by die: the attacker's, the defender's
 * @property {string} [totals]
 * @property {number} [needed]
 * @property {DieRoll[]} [rolls] the dice of an attack, search or spy (a die not rolled yet is null)
 */

/**
 * One die of a roll as the table draws it.
 * @typedef {object} DieRoll
 * @property {string} side who rolls it
 * @property {string | null} card the card rolling it
 * @property {number | null} die its face (null: not rolled yet)
 * @property {number} bullets added to the die (an attack's cards)
 * @property {number} modifier the cards played on it (Good Luck, Bad Luck, Assistance)
 * @property {number | null} total
 *
 * @typedef {object} SettledRoll a roll whose outcome is known
 * @property {string} action "attack", "search" or "steal"
 * @property {string} title the roll as a player names it: "Attack", "Search", "Spy", "Sturmwind"
 * @property {boolean} success
 * @property {number | null} [needed] what a search or spy needs
 * @property {DieRoll[]} rolls the attacker's die first
 * @property {string} text the outcome in words
 *
 * @typedef {object} MarkedCard a card the table marks
 * @property {string} number
 * @property {"placed" | "played" | "activated" | "moved" | "attacker" | "targeted" | "refreshed" |
 *            "destroyed" | "sent_home"} role what it did or what was done to it
 * @property {string} side
 *
 * @typedef {object} LastMove what happened since the human's last decision
 * @property {number} since the log entry where it begins
 * @property {string} side the bot's side
 * @property {string[]} moves the bot's moves in words
 * @property {string[]} chance what chance did (draws, Rocket cards, dice), never called a move
 * @property {MarkedCard[]} cards
 * @property {SettledRoll[]} dice
 * @property {Alternative[] | null} alternatives the bot's other candidates at its last rated move
 */

/**
 * An action of a past decision, as the review marks it on the table.
 * @typedef {object} MarkedAction
 * @property {number} id
 * @property {string} text
 * @property {string} kind
 * @property {string} [card]
 * @property {string} [target]
 * @property {string} [zone]
 * @property {string[]} [same_as]
 *
 * @typedef {object} ReviewStep
 * @property {number} index
 * @property {number} of
 * @property {string} chosen
 * @property {MarkedAction} chosen_action
 * @property {MarkedAction} [best_action] the better move, once the review has rated it
 * @property {string} [best]
 * @property {number | null} [loss]
 * @property {number | null} [best_value]
 * @property {number | null} [chosen_value]
 */

/**
 * The game as the human side sees it (GET /api/games/{id}).
 * @typedef {object} View
 * @property {string} id
 * @property {string} version names the position (an action sent for another is refused)
 * @property {number} turn
 * @property {number} turns
 * @property {string} title
 * @property {string} bot the bot's spec
 * @property {string} bot_label the bot named for people ("Bot: ISMCTS, 1 s per move")
 * @property {string} phase
 * @property {Record<string, number>} score by side
 * @property {"human" | "bot" | "review" | "over"} status
 * @property {boolean} pondering the bot thinks on your time (its search goes on while you decide)
 * @property {boolean} can_undo
 * @property {string} [undone] in an undo's answer: what it took back, in the terminal's words
 * @property {boolean} can_resign
 * @property {string} you the human's side
 * @property {string} bot_side
 * @property {number} bot_hand
 * @property {{ bot: number, you: number }} decks
 * @property {{ revealed: number[], face_down: number }} rockets
 * @property {{ pool: number, wildhorn: number, hidden: number }} fragments
 * @property {Zone[]} zones
 * @property {Card[]} in_play
 * @property {Card[]} gone
 * @property {Record<string, Card[]>} piles the cards gone, by side
 * @property {LastMove} last_move
 * @property {Card[]} hand
 * @property {Pending | null} pending
 * @property {string} prompt
 * @property {Action[]} actions
 * @property {LogEntry[]} log
 * @property {number} log_size the whole log's length (log holds its end)
 * @property {number[]} win_estimates
 * @property {{ you_win: boolean, text: string }} [result]
 * @property {ReviewStep} [review_step]
 */

/**
 * One rated decision of a review.
 * @typedef {object} ReviewDecision
 * @property {number} index
 * @property {number} turn
 * @property {string} chosen
 * @property {number | null} [chosen_value]
 * @property {string} [best]
 * @property {number | null} [best_value]
 * @property {number | null} [loss]
 * @property {number} [options]
 * @property {boolean} [exact] rated by the exact last-turn solver (not a search)
 *
 * The player's error rate over rated decisions: the mean loss in win
 * probability per decision (null when none is rated).
 * @typedef {object} ErrorRate
 * @property {number} decisions
 * @property {number | null} mean_loss
 *
 * @typedef {object} Review
 * @property {number} done
 * @property {number} total
 * @property {string} budget
 * @property {ReviewDecision[]} decisions
 * @property {ReviewDecision[]} [mistakes]
 * @property {ErrorRate} [error_rate] over every rated decision
 * @property {ErrorRate} [exact_error_rate] over the decisions rated exactly
 */

/**
 * The advice on a position (a hint, or the board's analysis): the answer of
 * `wildhorn-solve advise --json` (solver/data/advice.schema.json, docs/advice.md),
 * drawn in a player's words by advice_view.js.
 * @typedef {object} AdviceAction
 * @property {number} id
 * @property {string} action
 * @property {number} frequency how often the search chose it (a frequency, not a win chance)
 * @property {number | null} [visits]
 * @property {number | null} [value] your win chance after it
 * @property {number | null} [stderr]
 * @property {number | null} [loss] what it costs against the recommended action
 * @property {number | null} [loss_stderr]
 * @property {boolean} [about_the_same] as good as the recommended one within the search's noise
 *
 * @typedef {object} Outcome the answer in one class of dice (or Rocket cards)
 * @property {string} when the class in words ("if your search total is 2-3 (needs 4; fails as rolled)")
 * @property {number} probability its share of the reply's cases
 * @property {string} then the answer's action text
 * @property {string} [then_says] the answer as an order ("play PL18 Good Luck")
 * @property {string} [at] the step of the answer ("end": the game is over)
 * @property {number | null} value
 * @property {number | null} [stderr]
 *
 * @typedef {object} Reply a reply the opponent may make, and the answer to it
 * @property {string} if his side and reply ("polish PL18 Good Luck: play")
 * @property {string} [reply] the reply's action text
 * @property {string} [phase] the step he replies at
 * @property {string} [says] the reply as you see it ("plays Good Luck", "plays no Ambush!, then passes priority")
 * @property {string} [where] when it falls ("in the modifier window")
 * @property {string[]} [same_as] identical cards it stands for too (R27)
 * @property {string[]} [unseen] private windows he may have declined first (R29)
 * @property {string} then
 * @property {string} [then_says]
 * @property {string} [at]
 * @property {number | null} value
 * @property {number} [probability]
 * @property {number | null} [stderr]
 * @property {Outcome[]} [outcomes]
 * @property {number} [outcomes_covered]
 *
 * @typedef {object} Advice
 * @property {string} recommended
 * @property {number} recommended_id
 * @property {string} [phase]
 * @property {boolean} [exact]
 * @property {boolean} [only] the hint of a decision with one legal action (nothing searched)
 * @property {Record<string, number> | null} value by side
 * @property {Record<string, [number, number]> | null} [value_ci95]
 * @property {string | null} [uncertainty] how sure the mover's win chance is (apps.advise.uncertainty)
 * @property {AdviceAction[]} [actions]
 * @property {Reply[]} [responses]
 * @property {string | null} [responses_note]
 * @property {string | null} [opponent_model]
 * @property {{ spec?: string, iterations?: number, seconds?: number,
 *              responses_iterations?: number, continued?: boolean }} [stats]
 * @property {string | null} [to_move]
 */

/**
 * @typedef {object} Bots
 * @property {string[]} bots
 * @property {string} default
 * @property {Record<string, string>} labels each spec named for people
 * @property {number} max_time
 */

/**
 * GET /api/reference: every card and the rulings by number.
 * @typedef {object} Ruling
 * @property {string} id "R9", "D1"
 * @property {string} title
 * @property {string} part the part of the rules it belongs to
 * @property {string} text what it says, in a player's words
 *
 * @typedef {object} Reference
 * @property {SetCard[]} cards
 * @property {Ruling[]} rules
 * @property {string} source
 */

/**
 * A card of the card set (GET /api/board/cards).
 * @typedef {object} SetCard
 * @property {string} number
 * @property {string} name
 * @property {string} [type_name]
 * @property {string} [kind]
 * @property {number} [bullets]
 * @property {string} side
 * @property {Record<string, number | boolean>} abilities name: number to roll, or true
 * @property {string} text
 *
 * @typedef {object} CardSet
 * @property {SetCard[]} cards
 * @property {number} max_iterations
 * @property {number} default_iterations
 * @property {string} note
 */

/**
 * A state.json object (docs/state-format.md); the board builds and reads it.
 * @typedef {object} PendingJson
 * @property {string} kind
 * @property {string} [actor]
 * @property {string | null} [card]
 * @property {string | null} [target]
 * @property {string} [defender]
 * @property {boolean} [escorted]
 * @property {string} [zone]
 * @property {number[]} [dice]
 * @property {[number, number]} [modifiers]
 * @property {number} [window_passes]
 *
 * @typedef {object} StateJson
 * @property {string} format
 * @property {unknown} [game] a variant's parameters
 * @property {string} perspective
 * @property {number} turn
 * @property {string} step
 * @property {string | null} to_move
 * @property {string[]} hand
 * @property {Record<string, number>} hand_sizes
 * @property {number[]} rockets
 * @property {Record<string, number>} fragments
 * @property {{ card: string, zone: string, exhausted: boolean }[]} table
 * @property {string[]} gone
 * @property {string[]} events_in_play
 * @property {Record<string, boolean>} redraw_used
 * @property {string[]} [drawn_this_turn]
 * @property {Record<string, boolean>} [redraw_choice]
 * @property {{ left: number, passes: number, actor?: string,
 *              motorized_refresh?: { counters: number[], due: number } }} actions
 * @property {PendingJson | null} pending
 */

/**
 * The board's check of a position (POST /api/board/check), or a failure.
 * @typedef {object} Check
 * @property {boolean} ok
 * @property {string} [error]
 * @property {string} [path] the JSON path of the field in error
 * @property {StateJson} [state]
 * @property {{ decks?: Record<string, number>, pool?: number | null }} [derived]
 * @property {boolean} [advisable]
 * @property {string} [why] why not advisable
 * @property {string} [to_move]
 * @property {string} [step]
 * @property {number} [legal_actions]
 */

/**
 * An analysis of the board (POST /api/board/analyses, its events and GET).
 * @typedef {object} Analysis
 * @property {string} id
 * @property {"queued" | "running" | "done" | "stopped" | "failed"} status
 * @property {number | null} [progress]
 * @property {string} [phase]
 * @property {number} iterations
 * @property {number} iterations_done
 * @property {number} elapsed
 * @property {number} [searches_running]
 * @property {number} [searches_waiting]
 * @property {Advice} [result]
 * @property {string} [error]
 */

/** An answer of the API that is not 2xx: its message and HTTP status. */
export class ApiError extends Error {
  /** @param {string} message @param {number} status */
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

/**
 * A request; the answer's JSON whatever its status.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body] an object sent as JSON, or a string sent as it is
 * @returns {Promise<{ ok: boolean, status: number, data: any }>}
 */
export async function send(method, path, body) {
  /** @type {RequestInit} */
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers = { "Content-Type": "application/json" };
    opts.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const res = await fetch(path, opts);
  let data;
  try { data = await res.json(); } catch (e) { data = { error: `${res.status} ${res.statusText}` }; }
  return { ok: res.ok, status: res.status, data };
}

/**
 * A request whose failure throws an ApiError with the server's message.  The
 * type parameter names what the route answers (the server's JSON is trusted).
 * @template T
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<T>}
 */
export async function api(method, path, body) {
  const r = await send(method, path, body);
  if (!r.ok) throw new ApiError(r.data.error || `${r.status}`, r.status);
  return r.data;
}
