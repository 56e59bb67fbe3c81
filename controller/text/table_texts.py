"""What the table is told about the match (controller/match/, controller/log/, controller/layer/), as data.

Scores, the game log's troubles, the status lines, what now, and what launcher-voice says. Entries are
made with :func:`firmware.text.catalogue.entry`; controller/text/messages.py gathers them into the
game's catalogue.
"""

from __future__ import annotations

from firmware.text.catalogue import Text, entry

# What the table is shown about the match, its log and the game layer's replies.
TABLE: dict[str, Text] = {
    # controller/match/table.py
    "round_scores": entry("round %(round)d: %(winner)s scores %(points)d (%(total)d in all)",
                          round="int", winner="name", points="int", total="int"),
    "round_points": entry("round %(round)d: %(points)s", round="int", points="items"),
    "player_points": entry("%(player)s %(points)d (%(total)d)", player="name", points="int",
                           total="int"),
    "leave_table": entry("%(players)s reached the target and leaves the table",
                         "%(players)s reached the target and leave the table", "players",
                         players="list"),
    "match_winner": entry("%(winners)s wins the match", "%(winners)s win the match", "winners",
                          winners="names"),
    "round_corrected": entry("round %(round)d corrected", round="int"),
    "match_goes_on": entry("the match goes on: round %(round)d", round="int"),
    "round_dealt_again": entry("round %(round)d is dealt again", round="int"),
    "match_is_over": entry("the match is over (%(winners)s won): start a new game", winners="names"),
    "last_card_was": entry(
        "%(winner)s played the last card of round %(round)d, not %(player)s; undo that play first"
        " to change it", winner="name", round="int", player="name"),
    "draw_still_owed": entry(
        "%(player)s is still to be dealt %(cards)s of the last Draw card: those cards count in the"
        " score, deal them first", player="name", cards="cards"),
    "deal_still_owed": entry("the round cannot end while the launcher deals: %(player)s is still owed %(cards)d"
                           " card. End it once it is dealt (where the launcher waits, a press of the button"
                           " goes on), or undo what owes it",
                             "the round cannot end while the launcher deals: %(player)s is still owed %(cards)d"
                           " cards. End it once they are dealt (where the launcher waits, a press of the"
                           " button goes on), or undo what owes them",
                             "cards",
                             player="name", cards="int"),
    "attack_still_owed": entry(
        "%(player)s still owes %(presses)s of the last-card attack: those cards count in the score,"
        " press them first", player="name", presses="presses"),
    # controller/match/scores.py
    "last_attack_reminder": entry(
        "Round %(round)d ended on a last-card attack: the cards it ejected count in the victim's"
        " hand; check they were included, edit the round if not.", round="int"),
    "ejected_cards": entry("%(player)s: %(cards)s ejected (launcher count)", player="name",
                           cards="cards"),
    "ejected_cards_short": entry(
        "%(player)s: %(cards)s ejected (launcher count); the hand entered lists only %(listed)s",
        player="name", cards="cards", listed="cards"),
    "rule_note": entry("round %(round)d: %(note)s", round="int", note="messages"),
    "reached_same_round": entry("%(players)s reached %(target)d in the same round: the fewest points win",
                                players="names", target="int"),
    "tie_fewest": entry("%(players)s tie for the fewest points (%(points)d): a shared win",
                        players="names", points="int"),
    "only_room_leave": entry(
        "%(players)s reached %(target)d, only %(room)d may leave (two stay): most points leave first",
        "%(players)s reached %(target)d, only %(room)d may leave (two stay): most points leave first",
        "room", players="names", target="int", room="int"),
    "tie_stay": entry("%(players)s tie with %(points)d and all stay", players="names", points="int"),
    "match_over_edit": entry("the match is over (%(winners)s won); edit a round to correct it",
                             winners="names"),
    "hand_points_whole": entry("points must be a whole number, not %(points)s: enter a total of 0 or more"
                               " (digits 0-9), or the cards, e.g. 7, Hit 2, Wild", points="raw"),
    "hand_points_negative": entry("points cannot be negative (%(points)d): enter a total of 0 or more, or"
                                  " the cards, e.g. 7, Hit 2, Wild", points="int"),
    "empty_hand": entry("empty hand: enter a total (0 for none) or cards, e.g. 7, Hit 2, Wild"),
    "hand_card_missing": entry("a card is missing between two commas in '%(hand)s': name each card once,"
                               " separated by commas, e.g. 7, Hit 2, Wild", hand="raw"),
    "hand_card_not_a_name": entry("%(card)s is not a card's name: name the cards as text, e.g."
                                  " [\"7\", \"Hit 2\", \"Wild\"], or enter a total", card="raw"),
    "not_a_card_in_hand": entry("'%(card)s' is not a card of %(ruleset)s; its cards are: %(cards)s",
                                card="raw", ruleset="ruleset", cards="card_list"),
    "hand_of": entry("%(player)s's hand: %(reason)s", player="name", reason="text"),
    "no_player_in_match": entry("no player '%(name)s'; players: %(players)s", name="name", players="list"),
    "winner_not_seated": entry("%(player)s is no longer seated; seated: %(seated)s", player="name",
                               seated="list"),
    "hand_not_seated": entry("%(player)s is no longer seated: no hand; seated: %(seated)s", player="name",
                             seated="list"),
    "missing_hands": entry("missing hand of %(players)s", players="names"),
    "winner_hand_empty": entry("%(player)s won the round: their hand is empty (0), not %(points)d",
                               player="name", points="int"),
    "elimination_three": entry("elimination needs 3 players or more: with 2 the first hand is the duel"),
    "no_next_round": entry("the match is over: there is no next round to turn a card up for"),
    "round_already_ended": entry("round %(round)d has already ended; the round in play is %(current)d",
                                 round="int", current="int"),
    "round_not_started": entry("round %(round)d has not started; the round in play is %(current)d",
                               round="int", current="int"),
    "no_round": entry("no round %(round)d; rounds ended: %(ended)d", round="int", ended="int"),
    "correction_ends_match": entry(
        "with this correction round %(round)d ends the match, but round %(later)d was played after it",
        round="int", later="int"),
    "correction_changes_round": entry("this correction changes who played round %(round)d: %(reason)s",
                                      round="int", reason="text"),
    # controller/text/advice.py, controller/layer/service.py
    "dealing_advice_blast": entry(
        "deal %(hand)d cards each by hand (%(dealt)d) and turn one up: the other %(rest)d are the draw"
        " pile, from which each insertion is taken", hand="int", dealt="int", rest="int"),
    "dealing_advice_dealer": entry("the launcher deals %(hand)d to each seat (%(dealt)d) from the whole shuffled deck"
                                 " of %(deck)d (load it and reload the hopper: %(deck)d cards; a deal waits for"
                                 " cards); then have it deal one more card (the page's Turn up button), turn it"
                                 " face up to start the pile and say which it is (an action card is ignored: turn"
                                 " up another); nobody plays or draws before it",
                                   hand="int", dealt="int", deck="int"),
    "nothing_to_undo": entry("nothing to undo: the match has only just started (a new game starts another)"),
    "dealing_advice": entry("deal %(hand)d cards each by hand (%(dealt)d), turn one up, load the other"
                          " %(rest)d into the launcher and reload the hopper: %(rest)d cards",
                            hand="int", dealt="int", rest="int"),
    "dealing_advice_any_deck": entry("deal %(hand)d cards each by hand (%(dealt)d), turn one up, load the rest into the"
                                   " launcher and reload the hopper with how many they are",
                                     hand="int", dealt="int"),
    "undone_cards": entry("undone: %(action)s. That card did come out of the launcher and %(player)s holds"
                        " it: it is no longer counted for %(player)s, who puts it back on the draw pile"
                        " (the launcher's hopper); then reload the hopper with how many it holds",
                          "undone: %(action)s. Those %(cards)d cards did come out of the launcher and"
                        " %(player)s holds them: they are no longer counted for %(player)s, who puts them"
                        " back on the draw pile (the launcher's hopper); then reload the hopper with how"
                        " many it holds",
                          "cards",
                          action="text", cards="int", player="name"),
    "still_running": entry("match %(match)d (%(players)s, round %(round)d) is still being played: finish it,"
                         " start a new game anyway (match %(match)d stays in the history, from where it can"
                         " be resumed), or set it aside",
                           match="int", players="list", round="int"),
    "set_aside": entry("match %(match)d is set aside: resume it from the history to bring it back",
                       match="int"),
    "no_game": entry("no game yet (the game log is %(path)s): start a new game",
                     path="text"),
    "nothing_to_repair": entry("the game log %(path)s is sound: nothing to repair", path="text"),
    "log_moved_aside": entry("the game log was moved aside to %(path)s; a fresh one is started",
                             path="text"),
    "log_writable_again": entry("the game log can be written again"),
    "match_id_goes_on": entry("match %(match)d goes on", match="int"),
    "log_written_back": entry(
        "the game log is written back to %(path)s, every acknowledged action included", path="text"),
    "found_moved_aside": entry("the file found there was moved aside to %(path)s", path="text"),
    "already_current": entry("match %(match)d is already the table's", match="int"),
    "cannot_replay": entry("match %(match)d cannot be replayed (%(reason)s)", match="int", reason="text"),
    "resumed": entry("match %(match)d resumed", match="int"),
    "no_match": entry("no match %(match)d", match="int"),
    "no_match_stats": entry("no match %(match)d with statistics; see the history of matches",
                            match="int"),
    "log_not_open": entry("the game log %(path)s is not open: see the game's status",
                          path="text"),
    "log_unreadable": entry("the game log cannot be read (%(reason)s): see the game's status",
                            reason="text"),
    # controller/log/damage.py: what happened to the game log, and what to do
    "damage": entry("%(what)s: %(todo)s", what="text", todo="text"),
    "log_damaged": entry("the game log %(path)s is damaged (%(reason)s)", path="text", reason="text"),
    "log_damaged_todo": entry("repair the game log: it is moved aside (nothing is deleted) and a fresh log is"
                            " started; the launcher works meanwhile"),
    "match_unreplayable": entry("match %(match)d in %(path)s cannot be replayed (%(reason)s)",
                                match="int", path="text", reason="text"),
    "match_unreplayable_todo": entry("the match's log shows its actions; a new game starts another match in the same"
                                   " log, or repairing the game log moves the whole log aside"),
    "log_unwritable": entry("the game log %(path)s cannot be written since %(since)s (%(reason)s): actions"
                            " are refused and presses are not recorded", path="text", since="text",
                            reason="text"),
    "log_unwritable_todo": entry("free space on the disk of %(dir)s; the next action writes the log again",
                                 dir="text"),
    "log_read_only": entry("the game log %(path)s cannot be written (%(reason)s)", path="text",
                           reason="text"),
    "log_read_only_todo": entry("the log itself is not the problem, do not move it: let the user launcherd runs as"
                              " (%(user)s) write %(dir)s and the files in it, then repair the game log",
                                user="text", dir="text"),
    "log_gone": entry(
        "the game log %(path)s was deleted or replaced while launcherd was running; nothing more is"
        " written there", path="text"),
    "log_gone_todo": entry("repair the game log: launcherd writes back the log it still holds, with every"
                         " action it acknowledged"),
    "log_unopened": entry("the game log %(path)s cannot be opened (%(reason)s), though nothing says the file"
                          " itself is damaged: actions are refused and presses are not recorded",
                          path="text", reason="text"),
    "log_unopened_todo": entry("it is kept as it is: look at the disk and at what else is in %(dir)s; the next"
                               " action opens it again", dir="text"),
    "log_kept_sound": entry("the game log %(path)s passes its integrity check: it is kept and open again",
                            path="text"),
    # controller/layer/cli.py: the status line
    "cli_at_a_terminal": entry("%(said)s (at a terminal: %(command)s)", said="text", command="raw"),
    "status_match_over": entry("Match over - %(winners)s wins", "Match over - %(winners)s win", "winners",
                               winners="names"),
    "status_owes": entry("%(player)s's move - owes %(presses)s%(details)s", player="name",
                         presses="presses", details="parts"),
    "status_or_stacks": entry(" or stacks a Hit card"),
    "status_stops_early": entry(" (stops when cards come out)"),
    "status_uno_penalty": entry(" - Uno penalty"),
    "status_advice_penalty": entry(" - advice penalty"),
    "status_last_card_attack": entry(" - last-card attack, the cards count in the score"),
    "status_round_won": entry("Round %(round)d won by %(winner)s - enter the hands: game end-round",
                              round="int", winner="name"),
    "status_first_attack": entry(
        "%(player)s's move - name a colour and a player to attack: game first-attack", player="name"),
    "status_play_or_press": entry("%(player)s's move - play a card or press", player="name"),
    "status_first_discard": entry("%(player)s's move - discard all your %(color)s cards (the Discard All"
                                  " turned up) or press", player="name", color="color"),
    "status_first_discard_any": entry("%(player)s's move - discard all your cards of the Discard All's colour"
                                      " or press", player="name"),
    # the game status and scores tables
    "status_head": entry("%(ruleset)s - round %(round)d - dealer %(dealer)s", ruleset="ruleset", round="int",
                         dealer="name"),
    "status_on_card": entry("on %(color)s %(card)s", color="color", card="card"),
    "status_on_color": entry("on %(color)s", color="color"),
    "status_on_top": entry("on %(card)s", card="card"),
    "status_catchable": entry("%(player)s can be caught without Uno", player="name"),
    "status_out": entry("(out)"),
    "status_scoring": entry("scoring %(scoring)s to %(target)d", scoring="name", target="int"),
    "status_match_log": entry("match %(match)s, game log in %(dir)s", match="raw", dir="raw"),
    # launcherctl game's own lines (controller/layer/cli.py): the log's head, the history, the join code.
    "cli_log_head": entry("match %(match)d (%(ruleset)s), started %(started)s", match="int", ruleset="ruleset",
                          started="raw"),
    "cli_log_undone": entry("(undone)"),
    "cli_history_none": entry("no game played yet"),
    "cli_history_line": entry("%(started)s %(ruleset)s: %(players)s - %(rounds)d round, %(state)s",
                              "%(started)s %(ruleset)s: %(players)s - %(rounds)d rounds, %(state)s", "rounds",
                              started="raw", ruleset="ruleset", players="list", rounds="int", state="text"),
    "cli_history_won": entry("won by %(winner)s", winner="names"),
    "cli_history_playing": entry("being played"),
    "cli_history_unfinished": entry("not finished (game resume %(match)d)", match="int"),
    "cli_join_code": entry("join code %(code)s", code="raw"),
    "label_player": entry("player"),
    "label_cards_taken": entry("cards taken"),
    "label_hand": entry("hand"),
    "label_presses": entry("presses"),
    "label_score": entry("score"),
    "label_round": entry("round"),
    "label_winner": entry("winner"),
    "label_total": entry("total"),
    # launcherctl game stats (controller/match/stats.py format_stats): the columns, then the lines.
    "stats_col_cards": entry("cards"),
    "stats_col_burst": entry("burst"),
    "stats_col_dry": entry("dry"),
    "stats_col_sent": entry("sent"),
    "stats_col_received": entry("recvd"),
    "stats_col_won": entry("won"),
    "stats_col_matches": entry("matches"),
    "stats_col_matches_won": entry("match wins"),
    "stats_columns": entry("burst: the most cards of one press; dry: the most presses in a row with no card;"
                           " sent, recvd: the Hit presses laid on others and taken; won: rounds won"),
    "stats_no_match": entry("no match at the table"),
    "stats_match_head": entry("match %(match)d (%(ruleset)s)", match="int", ruleset="ruleset"),
    "stats_biggest_burst": entry("biggest burst: %(player)s, %(cards)s", player="name", cards="cards"),
    "stats_longest_dry": entry("longest dry streak: %(player)s, %(presses)s", player="name", presses="presses"),
    "stats_longest_mega_hit": entry("longest Mega Hit: %(hits)d hit in %(cards)s, started by %(started_by)s,"
                                    " pressed by %(pressed_by)s",
                                    "longest Mega Hit: %(hits)d hits in %(cards)s, started by %(started_by)s,"
                                    " pressed by %(pressed_by)s", "hits",
                                    hits="int", cards="cards", started_by="name", pressed_by="name"),
    "stats_round": entry("round %(round)d: %(winner)s won in %(time)s", round="int", winner="name", time="raw"),
    "stats_history": entry("history: %(matches)s, %(rounds)s", matches="text", rounds="text"),
    "stats_n_matches": entry("%(count)d match", "%(count)d matches", "count", count="int"),
    "stats_n_rounds": entry("%(count)d round", "%(count)d rounds", "count", count="int"),
    # launcherctl game rules (controller/rules/ruledoc.py format_rules; the English texts are also
    # rules_data's and docs/rules.md's): the heads, the cards' notes, the decks, the penalties, the options, the scorings.
    "rules_head": entry("%(ruleset)s (%(typed)s) - deck: %(deck)s",
                        ruleset="ruleset", typed="raw", deck="text"),
    "rules_head_default": entry("%(ruleset)s (%(typed)s), the default - deck: %(deck)s",
                                ruleset="ruleset", typed="raw", deck="text"),
    "label_card": entry("card"),
    "label_points": entry("points"),
    "label_in_box": entry("in box"),
    "rules_card_typed": entry("%(card)s (%(typed)s)", card="card", typed="raw"),
    "rules_deck_counted": entry("%(cards)d cards, every count from %(source)s", cards="int", source="raw"),
    "rules_deck_standard": entry("%(cards)d cards, the standard deck", cards="int"),
    "rules_deck_attack_2005": entry("counts of the numbers, Reverse and Skip are not given by the sources"),
    "rules_deck_attack_2010": entry("only the two Discard All per colour are counted by the sources"),
    "rules_effect_reverse": entry("play changes direction (with 2 players: as Skip)"),
    "rules_effect_skip": entry("the next player loses the turn"),
    "rules_effect_discard": entry("its player discards every card of that colour"),
    "rules_effect_trade_hands": entry("its player swaps hands with the player named"),
    "rules_effect_wild_all_hit": entry("every other player presses once"),
    "rules_effect_wild_hit_fire": entry("the next player presses until cards come out"),
    "rules_effect_draw_one": entry("the next player inserts 1 card in the blaster: that is their turn"),
    "rules_effect_wild_blast": entry("the next player inserts until the blast and takes every card that"
                                     " comes out"),
    "rules_effect_draw_two": entry("the next player is dealt 2 and loses the turn (no stacking)"),
    "rules_effect_wild_draw_four": entry("the next player accepts (dealt 4, turn lost) or challenges (game"
                                         " challenge)"),
    "rules_effect_wild_mega_minions": entry("every other player discards Draw Two, Reverse and Skip cards"
                                            " and is dealt as many (game minions NAME=N ...)"),
    "rules_note_presses": entry("next player presses %(presses)d", presses="int"),
    "rules_note_named_presses": entry("the player named presses %(presses)d", presses="int"),
    "rules_note_color": entry("names a colour (--color)"),
    "rules_note_target": entry("names a player (--target)"),
    "rules_note_cannot_end": entry("a round cannot end on it"),
    "rules_played_with_launcher": entry("Played with the launcher."),
    "rules_played_with_dealer": entry("Played with the launcher as dealer (it deals every card)."),
    "rules_played_with_blaster": entry("Played with the card blaster."),
    "rules_penalties": entry("%(played)s %(penalties)s", played="text", penalties="messages"),
    "rules_uno_forgotten": entry("Uno forgotten: %(penalty)s", penalty="text"),
    "rules_advice_given": entry("advice given: %(penalty)s", penalty="text"),
    "rules_mega_hit_yes": entry("Mega Hit stacking: yes"),
    "rules_mega_hit_no": entry("Mega Hit stacking: no"),
    "rules_colors": entry("colours: %(colors)s", colors="color_list"),
    "rules_option": entry("--option %(name)s=%(choices)s (default %(default)s): %(doc)s",
                          name="raw", choices="raw", default="raw", doc="text"),
    "rules_option_early_stop": entry("true: an obligation ends at the first press that gives cards (001);"
                                     " false: press them all"),
    "rules_option_resume": entry("after a Mega Hit chain, play resumes with the player after the first"
                                 " attacker (001) or with the first attacker (000)"),
    "rules_option_deal_pause_s": entry("seconds between two seats' piles when dealing without an aim servo"),
    "rules_option_deal_pause": entry("timer: wait deal_pause_s between seats; press: wait for the button"),
    "rules_option_last_card_draws": entry("true: a round won on Draw Two / Wild Draw Four still deals the"
                                          " next player 2 / 4, and those cards count (§7)"),
    "rules_scoring_head": entry("scoring (--scoring, --target N, default %(target)d):", target="int"),
    "rules_scoring": entry("%(name)s: %(rule)s", name="raw", rule="text"),
    "rules_scoring_standard": entry("the round winner scores the points left in the other players' hands;"
                                    " the first to reach the target wins"),
    "rules_scoring_lowest": entry("each player scores the points left in their own hand; once anyone"
                                  " reaches the target, the fewest points win (equal fewest share the win)"),
    "rules_scoring_elimination": entry("the lowest tally; whoever reaches the target leaves the table,"
                                       " until two remain; the next round between those two decides the"
                                       " match"),
    "scores_head": entry("%(scoring)s scoring, target %(target)d", scoring="name", target="int"),
    "scores_out": entry("out: %(players)s", players="list"),
    "scores_winner": entry("winner: %(winners)s", winners="names"),
    "scores_next": entry("next: round %(round)d, dealer %(dealer)s", round="int", dealer="name"),
    "status_owes_inserts": entry("%(player)s's move - inserts %(cards)s in the blaster%(details)s",
                                 player="name", cards="cards", details="parts"),
    "status_inserts_until": entry("%(player)s's move - inserts until the blast in the blaster%(details)s",
                                  player="name", details="parts"),
    "status_dealt": entry("%(player)s is dealt %(cards)s by the launcher (%(reason)s)", player="name",
                          cards="cards", reason="text"),
    # Why the launcher deals (a dealer round's owed reason, controller/rules/classic.py), in words (#40).
    "deal_reason:deal": entry("the deal"),
    "deal_reason:draw-two": entry("a Draw Two"),
    "deal_reason:wild-draw-four": entry("a Wild Draw Four"),
    "deal_reason:challenge-lost": entry("a challenge lost"),
    "deal_reason:illegal-wild-draw-four": entry("an illegal Wild Draw Four"),
    "deal_reason:last-card-draw": entry("the last card's Draw"),
    "deal_reason:minions": entry("the Minions"),
    "deal_reason:uno": entry("Uno not called"),
    "status_play_or_draw": entry("%(turn)s's move - play the card drawn if it matches (game play) or keep"
                                 " it: game pass", turn="name"),
    "status_challenge_or_accept": entry(
        "%(turn)s's move - game accept (dealt 4, turn lost) or game challenge", turn="name"),
    "status_challenge_result": entry(
        "%(turn)s's move - the challenged hand is shown: game challenge-result legal|illegal",
        turn="name"),
    "status_minions": entry(
        "%(turn)s's move - how many cards each other player discarded: game minions NAME=N ...",
        turn="name"),
    "status_play_or_insert": entry("%(player)s's move - play a card or insert one in the blaster",
                                   player="name"),
    "status_play_or_draw_one": entry("%(player)s's move - play a card or draw one (press, or game draw)",
                                     player="name"),
    # controller/layer/service.py
    "undone": entry("undone: %(action)s", action="text"),
    "hopper_unknown": entry("the launcher does not know how many cards it holds: after loading it, reload the"
                          " hopper with how many they are"),
    "hopper_empty": entry("the launcher is empty: shuffle the discard pile (all but its top card) into the"
                        " hopper, then reload the hopper with how many cards it holds"),
    "hopper_low": entry("about %(hopper)d card left in the launcher: shuffle the discard pile (all but its"
                      " top card) into the hopper, then reload the hopper with how many cards it holds",
                        "about %(hopper)d cards left in the launcher: shuffle the discard pile (all but"
                      " its top card) into the hopper, then reload the hopper with how many cards it"
                      " holds",
                        "hopper",
                        hopper="int"),
    "hopper_holds": entry("the launcher holds about %(hopper)d card",
                          "the launcher holds about %(hopper)d cards", "hopper", hopper="int"),
    "press_empty_not_counted": entry(
        "press %(press_id)d gave nothing: the launcher is empty and the press does not count;"
        " reload it and press again", press_id="int"),
    "press_not_counted": entry("press %(press_id)d (%(cards)s) is not counted in the game: %(reason)s",
                               press_id="int", cards="cards", reason="text"),
    "late_card_not_counted": entry("a card that came out late is not counted: %(reason)s", reason="text"),
    "insert_not_counted": entry(
        "insertion %(insert_id)d (%(cards)s blasted) is not counted in the game: %(reason)s",
        insert_id="int", cards="cards", reason="text"),
    "deal_waits": entry("dealing to %(player)s waits: %(reason)s; it goes on by itself", player="name",
                        reason="text"),
    "deal_short": entry("%(player)s was dealt %(cards)d of %(count)d card (%(ended)s); the rest comes once"
                      " the launcher is ready (pull out a stuck card, or reload the hopper)",
                        "%(player)s was dealt %(cards)d of %(count)d cards (%(ended)s); the rest comes"
                      " once the launcher is ready (pull out a stuck card, or reload the hopper)",
                        "count",
                        player="name", cards="int", count="int", ended="text"),
    "dealt_too_many": entry("%(cards)d cards came out for %(player)s, who was owed %(count)d: %(extra)d go"
                          " back in the hopper (then reload the hopper with how many it holds)",
                            cards="int", player="name", count="int", extra="int"),
    "deal_pause_press": entry("hand the pile over, then press the button to deal to %(player)s",
                              player="name"),
    "dealt_after_stop": entry("%(cards)d card came out after the deal was stopped and is not counted: put it"
                            " back in the hopper, then reload the hopper with how many it holds",
                              "%(cards)d cards came out after the deal was stopped and are not counted: put them"
                            " back in the hopper, then reload the hopper with how many it holds",
                              "cards",
                              cards="int"),
    "deal_not_counted": entry(
        "%(cards)s dealt to %(player)s are not counted in the game, and dealing stops: %(reason)s",
        cards="cards", player="name", reason="text"),
    "draw_failed": entry("%(player)s draws no card: %(reason)s; reload if the launcher is empty, then draw"
                         " again", player="name", reason="text"),
    "no_card_came_out": entry("no card came out (%(ended)s)", ended="text"),
    "no_draw": entry("%(ruleset)s is not played with the launcher as dealer: press the button instead",
                     ruleset="ruleset"),
    "draw_pile_now": entry("the draw pile now holds %(rest)d cards (%(turned)d turned up to start the pile)",
                           rest="int", turned="int"),
    "tell_turned_up": entry("a card was dealt to start the pile: say which it is"),
    "press_while_dealing": entry("the launcher is already dealing, %(player)s: this press deals nothing more (a"
                               " draw is one card; then play it or pass)",
                                 player="name"),
    "no_draw_blast": entry("%(ruleset)s has no draw: a player who cannot or will not play takes the top card of"
                           " the draw pile and inserts it in the blaster, and the turn is over", ruleset="ruleset"),
    "blaster_counts_inserts": entry("the blaster is fitted and counts every insertion itself: put the card in an empty"
                                  " slot; an insertion is told by hand only at a table without a blaster"),
    "busy_dealing": entry("the launcher is dealing: draw once the cards owed are dealt"),
    "deal_held": entry("%(player)s is owed %(cards)d card again: nothing is dealt after an undo. Undo"
                     " again to take back what caused it; a press of the button deals it",
                       "%(player)s is owed %(cards)d cards again: nothing is dealt after an undo. Undo"
                     " again to take back what caused them; a press of the button deals them",
                       "cards",
                       player="name", cards="int"),
    "deal_waits_resumed": entry("%(player)s is owed %(cards)d card: a resumed match deals nothing by itself;"
                                " a press of the button deals it",
                                "%(player)s is owed %(cards)d cards: a resumed match deals nothing by itself;"
                                " a press of the button deals them",
                                "cards", player="name", cards="int"),
    # Where play goes after a stacked Mega Hit is pressed out (rules option "resume").
    "resumes_with_first_attacker": entry("play resumes with %(player)s, who started the Mega Hit", player="name"),
    "resumes_after_first_attacker": entry("play resumes with %(player)s, after %(attacker)s who started the Mega Hit",
                                          player="name", attacker="name"),
    # What now: who moves and what they may do (game/status what_now), every ruleset (#24).
    "what_now_match_over": entry("%(winners)s won the match: start a new game", winners="names"),
    "what_now_round_over": entry("%(winner)s won round %(round)d: enter everyone's hands to score it",
                                 winner="name", round="int"),
    "what_now_play_or_press": entry("%(player)s: play a card, or press the button", player="name"),
    "what_now_first_attack": entry("%(player)s: name a colour and a player to attack", player="name"),
    "what_now_press": entry("%(player)s: press the button, %(presses)s", player="name", presses="presses"),
    "what_now_press_or_stack": entry("%(player)s: press the button, %(presses)s, or answer with a Hit card",
                                     player="name", presses="presses"),
    "what_now_press_until_cards": entry("%(player)s: press the button until cards come out", player="name"),
    "what_now_penalty": entry("%(player)s: press the button, %(presses)s, for the penalty", player="name",
                              presses="presses"),
    "what_now_dealt": entry("the launcher deals %(cards)s to %(player)s first", player="name", cards="cards"),
    "what_now_turn_up_dealer": entry("%(player)s starts once the first card is turned up: the launcher deals it,"
                                     " then say which card it is", player="name"),
    "what_now_turn_up": entry("%(player)s starts once the first card is turned up: say which card it is",
                              player="name"),
    "what_now_play_or_draw": entry("%(player)s: play a card, or press to draw one", player="name"),
    "what_now_drawn": entry("%(player)s: play the card just drawn, or pass", player="name"),
    "what_now_challenge": entry("%(player)s: accept %(cards)s, or challenge %(challenged)s", player="name",
                                cards="cards", challenged="name"),
    "what_now_challenge_result": entry(
        "%(challenged)s shows their hand to %(player)s: was the Wild Draw Four legal (%(player)s is dealt 6)"
        " or not (%(challenged)s is dealt 4)?", player="name", challenged="name"),
    "what_now_minions": entry("Wild Mega Minions Power: say how many cards were discarded by %(players)s",
                              players="names"),
    "what_now_play_or_insert": entry("%(player)s: play a card, or insert one in the blaster", player="name"),
    "what_now_insert": entry("%(player)s: insert in the blaster, %(inserts)s", player="name", inserts="inserts"),
    "what_now_insert_until_blast": entry("%(player)s: insert cards in the blaster until it fires", player="name"),
    "press_settles_first": entry("a press draws no card now: %(what)s", what="messages"),
    # controller/text/advice.py what_now (issue #39)
    "what_now_first_discard": entry("%(player)s: discard all your %(color)s cards (the Discard All turned up),"
                                    " or press the button", player="name", color="color"),
    "what_now_first_discard_any": entry("%(player)s: discard all your cards of the Discard All's colour, or"
                                        " press the button", player="name"),
    "deal_still_held": entry("%(player)s is still owed %(cards)d card, not dealt yet: nothing is dealt after an"
                             " undo. Undo again to take back what caused it; a press of the button deals it",
                             "%(player)s is still owed %(cards)d cards, not dealt yet: nothing is dealt after an"
                             " undo. Undo again to take back what caused them; a press of the button deals them",
                             "cards", player="name", cards="int"),
    "deal_held_first": entry("%(player)s's %(cards)d card held by an undo waits for a press of"
                             " the button, and so does what this action owes: the press deals both",
                             "%(player)s's %(cards)d cards held by an undo wait for a press of"
                             " the button, and so does what this action owes: the press deals both",
                             "cards", player="name", cards="int"),
    "press_deals_held": entry("the card owed to %(player)s waited for a press: this one deals it",
                              "the %(cards)d cards owed (%(player)s's first) waited for a press: this one"
                              " deals them", "cards", player="name", cards="int"),
    # An action of the log in words (controller/text/advice.py action_said, #40).
    "action_press": entry("%(player)s pressed: %(cards)s", player="name", cards="cards"),
    "action_press_cut_jam": entry("%(player)s pressed: %(cards)s, cut short by a jam (the stuck card counted)",
                                  player="name", cards="cards"),
    "action_press_cut_empty": entry("%(player)s pressed: %(cards)s, cut short: the launcher ran empty",
                                    player="name", cards="cards"),
    "action_press_cut_lid": entry("%(player)s pressed: %(cards)s, cut short: the lid was opened",
                                  player="name", cards="cards"),
    "action_late_cards": entry("%(cards)s that came out late, for %(player)s", player="name", cards="cards"),
    "action_catch": entry("%(player)s caught without calling Uno", player="name"),
    "action_uno": entry("%(player)s called Uno", player="name"),
    "action_hint": entry("a hint about %(player)s", player="name"),
    "action_by": entry("%(player)s: %(action)s", player="name", action="text"),
    "action_other": entry("an action"),
    "action:new": entry("a new game"),
    "action:uno": entry("Uno called"),
    "action:catch": entry("a catch"),
    "action:hint": entry("a hint"),
    "action:first_attack": entry("the turned-up Wild Attack-Attack's colour and player"),
    "action:end_round": entry("the end of the round"),
    "action:edit_round": entry("a round corrected"),
    "action:insert": entry("a card into the blaster"),
    "action:pass": entry("passed"),
    "action:challenge": entry("a challenge of the Wild Draw Four"),
    "action:challenge-result": entry("the challenge's result"),
    "action:accept": entry("the Wild Draw Four accepted"),
    "action:minions": entry("the Minions' discards"),
    "action:turn_up": entry("the first card turned up"),
    "action:draw": entry("a card drawn"),
    # A burst cut short, and a press the launcher ignored (controller/layer/intake.py, #40).
    "burst_cut_jam": entry("%(player)s's burst stopped at a jam: %(cards)s for %(player)s, counting the card"
                           " stuck in the slot (pull it out: it is %(player)s's too); %(owed)s",
                           player="name", cards="cards", owed="text"),
    "burst_cut_empty": entry("%(player)s's burst stopped: the launcher ran empty after %(cards)s, all %(player)s's;"
                             " shuffle the discard pile into the launcher and reload it; %(owed)s",
                             player="name", cards="cards", owed="text"),
    "burst_cut_lid": entry("%(player)s's burst stopped: the lid was opened after %(cards)s, all %(player)s's;"
                           " close the lid; %(owed)s", player="name", cards="cards", owed="text"),
    "burst_owes_nothing": entry("%(player)s owes no more presses", player="name"),
    "burst_still_owes": entry("%(player)s still owes %(presses)s", player="name", presses="presses"),
    "press_ignored_jammed": entry("that press was ignored, nothing counted: a card is stuck in the launcher; pull"
                                  " it out, then press again"),
    "press_ignored_jammed_owner": entry("that press was ignored, nothing counted: a card is stuck in the launcher"
                                        " (it is %(owner)s's); pull it out, then press again", owner="name"),
    "press_ignored_lid": entry("that press was ignored, nothing counted: the lid is open; close it, then press"
                               " again"),
    "press_ignored_halted": entry("that press was ignored, nothing counted: the launcher has stopped; see why"
                                  " on the table page and reset it, then press again"),
    "press_ignored_beam": entry("that press was ignored, nothing counted: something is in the exit slot; clear"
                                " it, then press again"),
    # The opening deal waits for the whole deck in the hopper (controller/layer/dealing.py, #40).
    "load_deck": entry("load the deck before the deal: the whole shuffled deck, %(deck)d cards, in the hopper"
                       " (it holds %(hopper)d now) and tell the launcher so; then press the button to deal",
                       deck="int", hopper="int"),
    "load_deck_unknown": entry("load the deck before the deal: the whole shuffled deck, %(deck)d cards, in the"
                               " hopper, and tell the launcher so; then press the button to deal", deck="int"),
    "press_deals_deck": entry("the deal waits for the deck: once the %(deck)d cards are loaded, a press of the"
                              " button deals", deck="int"),
    "status_turn_up": entry("%(player)s starts once the first card is turned up: nobody plays, presses or"
                            " draws before it", player="name"),
}

# What launcher-voice says: short, to be heard across a table.
VOICE: dict[str, Text] = {
    "voice_turn": entry("%(player)s's move", player="name"),
    "voice_press": entry("%(player)s, press once", "%(player)s, press %(presses)d times", "presses",
                         player="name", presses="int"),
    "voice_press_twice": entry("%(player)s, press twice", player="name"),
    "voice_press_until": entry("%(player)s, press until cards come out", player="name"),
    "voice_mega_hit": entry("Mega Hit! %(hits)d hit for %(player)s", "Mega Hit! %(hits)d hits for %(player)s",
                            "hits", hits="int", player="name"),
    "voice_takes": entry("%(player)s takes one", "%(player)s takes %(cards)d", "cards",
                         player="name", cards="int"),
    "voice_nothing": entry("Nothing for %(player)s", player="name"),
    "voice_empty": entry("The launcher is empty"),
    "voice_jam": entry("A card is stuck"),
    "voice_halted": entry("The launcher has stopped: see the table page"),
    "voice_log_trouble": entry("Trouble with the game log: see the table page"),
    "voice_round_won": entry("%(player)s wins round %(round)d", player="name", round="int"),
    # make demo's one line about its voice (controller/voice/sound.py): it speaks, or why not.
    "language:en": entry("English"),
    "language:fr": entry("French"),
    "demo_voice_speaks": entry("voice: launcher-voice speaks %(language)s; make demo MUTE=1 turns it off"
                               " (launcher-voice --mute prints the phrases)", language="text"),
    "demo_voice_muted": entry("voice: off (MUTE=1); launcher-voice --mute prints what it would say"),
    "demo_voice_no_aplay": entry("voice: silent, aplay is missing (%(install)s)", install="raw"),
    "demo_voice_no_espeak": entry("voice: silent, espeak-ng is missing (%(install)s)", install="raw"),
    "demo_voice_no_sound_card": entry("voice: silent, no sound card (aplay -l lists none); launcher-voice --mute"
                                      " prints what it would say"),
}
