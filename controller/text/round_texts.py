"""What a round says and refuses (controller/rules/: the Attack, classic and blast flows), as data.

With the words those messages take as parameters (counts, card names, colours, directions). Entries
are made with :func:`firmware.text.catalogue.entry`; controller/text/messages.py gathers them into
the game's catalogue.
"""

from __future__ import annotations

from firmware.text.catalogue import Text, entry


# Words that are parameters of other messages. Card ids stay as players type them in English
# (rulesets name them so); French uses the French rule book's names (seed 001), which
# :func:`controller.text.messages.card_id` also accepts as input.
WORDS: dict[str, Text] = {
    "n_presses": entry("%(count)d press", "%(count)d presses", "count", count="int"),
    "presses_until_cards": entry("presses until cards come out"),
    "n_cards": entry("%(count)d card", "%(count)d cards", "count", count="int"),
    "n_insertions": entry("%(count)d insertion", "%(count)d insertions", "count", count="int"),
    "insertions_until_blast": entry("insertions until the blast"),
    "names_and": entry("%(names)s and %(last)s", names="raw", last="raw"),
    "direction:clockwise": entry("clockwise"),
    "direction:counterclockwise": entry("counterclockwise"),
    "color:red": entry("red"),
    "color:yellow": entry("yellow"),
    "color:green": entry("green"),
    "color:blue": entry("blue"),
    "color:orange": entry("orange"),
    "color:purple": entry("purple"),
    # What a classic round waits for before anything else (controller/rules/classic.py).
    # The rulesets by the name of their box (controller/rules/, #40).
    "ruleset:attack-mega-hit": entry("UNO Attack Mega Hit"),
    "ruleset:attack-2005": entry("UNO Attack (2005)"),
    "ruleset:attack-2010": entry("UNO Attack (2010)"),
    "ruleset:blast": entry("UNO Blast"),
    "ruleset:classic": entry("UNO"),
    "ruleset:despicable-me-4": entry("UNO Despicable Me 4"),
    # The moves by what a player does, as refusals list them (action types, #40).
    "move:new": entry("starting a game"),
    "move:play": entry("playing a card"),
    "move:press": entry("a press of the launch button"),
    "move:cards": entry("cards that came out late"),
    "move:draw": entry("drawing a card"),
    "move:pass": entry("passing after drawing"),
    "move:uno": entry("calling Uno"),
    "move:catch": entry("catching a player who did not call Uno"),
    "move:hint": entry("the penalty for advice"),
    "move:first_attack": entry("naming the colour and the player of a turned-up Wild Attack-Attack"),
    "move:turn_up": entry("saying which card was turned up"),
    "move:insert": entry("a card into the blaster"),
    "move:challenge": entry("challenging a Wild Draw Four"),
    "move:challenge-result": entry("the result of a challenge"),
    "move:accept": entry("accepting a Wild Draw Four"),
    "move:minions": entry("the counts of a Wild Mega Minions Power"),
    "move:end_round": entry("ending the round"),
    "move:edit_round": entry("correcting a round"),
    # What an action's keys say (the ``param`` kind), as a refusal of a missing one names them.
    "param:card": entry("the card"),
    "param:color": entry("the colour"),
    "param:target": entry("the player attacked"),
    "param:player": entry("the player"),
    "param:cards": entry("how many cards"),
    "param:blast": entry("whether it fired"),
    "param:result": entry("the result"),
    "param:counts": entry("how many cards each player discarded"),
    "param:by": entry("who acts"),
    "param:last": entry("whether it is the last card"),
    "param:press_id": entry("the press it was"),
    "param:insert_id": entry("the insertion it was"),
    "param:ended": entry("how the burst ended"),
    "param:winner": entry("who won the round"),
    "param:hands": entry("the hands left"),
    "param:round": entry("which round"),
    "param:rules": entry("the game's box"),
    "param:players": entry("the players"),
    "awaiting:play_or_pass": entry("play or pass"),
    "awaiting:challenge_or_accept": entry("challenge or accept"),
    "awaiting:challenge_result": entry("challenge result"),
    "awaiting:minions": entry("minions"),
    **{
        f"card:{card}": entry(card)
        for card in (
            "reverse", "skip", "hit-1", "hit-2", "discard-all", "wild", "wild-attack",
            "trade-hands", "wild-all-hit", "wild-hit-fire", "draw-one", "discard-color",
            "wild-blast", "draw-two", "wild-draw-four", "wild-mega-minions",
        )
    },
}

# What the game's rules say as a round is played (controller/rules/).
ROUND: dict[str, Text] = {
    "round_deals": entry("round %(round)d of %(ruleset)s: %(dealer)s deals",
                         round="int", ruleset="ruleset", dealer="name"),
    "first_reverse": entry("Reverse turned up: %(dealer)s (the dealer) starts, play goes %(direction)s",
                           dealer="name", direction="direction"),
    "first_skip": entry("Skip turned up: %(player)s is skipped", player="name"),
    "first_hit": entry("%(card)s turned up: %(player)s owes %(presses)s and misses the turn",
                       card="card", player="name", presses="presses"),
    "first_wild": entry("Wild turned up: %(player)s names the colour", player="name"),
    "first_discard_all": entry("Discard All turned up: %(player)s discards that colour or presses",
                               player="name"),
    "first_wild_attack": entry(
        "Wild Attack-Attack turned up: %(player)s names a colour and a player to attack", player="name"),
    "first_wild_all_hit": entry("Wild All Hit turned up: %(players)s press once each", players="list"),
    "first_wild_hit_fire": entry(
        "Wild Hit-Fire turned up: %(player)s presses until cards come out, loses the turn",
        player="name"),
    "direction_now": entry("play now goes %(direction)s", direction="direction"),
    "skipped": entry("%(player)s is skipped", player="name"),
    "owes": entry("%(player)s owes %(presses)s", player="name", presses="presses"),
    "owes_or_stack": entry("%(player)s owes %(presses)s or answers with a Hit card",
                           player="name", presses="presses"),
    "all_hit": entry("each other player presses once: %(players)s", players="list"),
    "hit_fire": entry("%(player)s presses until cards come out", player="name"),
    "swap_hands": entry("%(player)s and %(target)s swap hands", player="name", target="name"),
    "plays_again": entry("%(player)s plays again (two players)", player="name"),
    "mega_hit_passes": entry(
        "Mega Hit: %(hits)d hit passes to %(player)s, who presses or stacks a Hit card",
        "Mega Hit: %(hits)d hits pass to %(player)s, who presses or stacks a Hit card",
        "hits", hits="int", player="name"),
    "wins_round": entry("%(player)s plays the last card and wins round %(round)d",
                        player="name", round="int"),
    "last_card_attack": entry(
        "the attack still happens: %(player)s owes %(presses)s; those cards count in the score",
        player="name", presses="presses"),
    "plays": entry("%(player)s plays %(card)s", player="name", card="card"),
    "plays_color": entry("%(player)s plays %(card)s (%(color)s)", player="name", card="card",
                         color="color"),
    "plays_at": entry("%(player)s plays %(card)s at %(target)s", player="name", card="card",
                      target="name"),
    "plays_color_at": entry("%(player)s plays %(card)s (%(color)s) at %(target)s", player="name",
                            card="card", color="color", target="name"),
    "pressed_turn_over": entry("%(player)s pressed: %(cards)s, turn over", player="name", cards="cards"),
    "pressed_done": entry("%(player)s pressed: %(cards)s, done", player="name", cards="cards"),
    "pressed_still_owes": entry("%(player)s pressed: %(cards)s, still owes %(presses)s",
                                player="name", cards="cards", presses="presses"),
    "late_cards": entry("%(player)s also takes %(cards)s that came out late", player="name",
                        cards="cards"),
    "no_uno": entry("%(player)s did not call Uno: %(player)s owes %(presses)s", player="name",
                    presses="presses"),
    "gave_advice": entry("%(player)s gave advice: %(player)s owes %(presses)s", player="name",
                         presses="presses"),
    "calls_uno": entry("%(player)s calls Uno", player="name"),
    "names_color_target": entry("%(player)s names %(color)s and %(target)s", player="name",
                                color="color", target="name"),
    "pressed_still_names": entry(
        "%(player)s pressed: %(cards)s; %(player)s still names a colour and a player to attack",
        player="name", cards="cards"),
    # refusals of controller/rules/game.py that players meet while playing
    "no_player": entry("no player '%(name)s' at the table; players: %(players)s", name="name",
                       players="list"),
    "round_is_over": entry("round %(round)d is over (%(winner)s won); start a new round", round="int",
                           winner="name"),
    "not_your_move": entry("it is %(player)s's move, not %(by)s's", player="name", by="name"),
    "names_another_player": entry("%(card)s names another player, not %(player)s", card="card",
                                  player="name"),
    "first_names_color_target": entry(
        "%(player)s first names the colour and target of the turned-up Wild Attack-Attack", player="name"),
    "owes_first": entry("%(player)s owes %(presses)s first", player="name", presses="presses"),
    "owes_first_no_mega_hit": entry("%(player)s owes %(presses)s first; %(ruleset)s has no Mega Hit stacking",
                                    player="name", presses="presses", ruleset="ruleset"),
    "only_hit_answers": entry("only a Hit card (%(cards)s) answers a Mega Hit; or %(player)s presses",
                              cards="card_list", player="name"),
    "cannot_end_on": entry("a round cannot end on %(card)s", card="card"),
    "pile_mismatch": entry(
        "a %(color)s %(card)s does not go on the %(pile_color)s %(pile_card)s: play a %(pile_color)s"
        " card, a %(pile_card)s or a wild, or press",
        color="color", card="card", pile_color="color", pile_card="card"),
    "pile_mismatch_wild": entry(
        "a %(color)s %(card)s does not go on the %(pile_color)s %(pile_card)s: play a %(pile_color)s"
        " card or a wild, or press",
        color="color", card="card", pile_color="color", pile_card="card"),
    "nobody_pressed": entry("nobody has pressed yet this round: the cards belong to no one"),
    "last_press_was": entry("the last press was %(player)s's, not %(by)s's", player="name", by="name"),
    "no_advice_penalty": entry("%(ruleset)s has no advice penalty (the 2005 and 2010 boxes only)",
                               ruleset="ruleset"),
    "called_uno": entry("%(player)s called Uno", player="name"),
    "no_first_attack_waiting": entry("no turned-up Wild Attack-Attack waits for a colour and a target"),
    "unknown_colour": entry("unknown colour '%(color)s'; colours: %(colors)s", color="raw",
                            colors="color_list"),
    "unknown_colour_of": entry("unknown colour '%(color)s'; colours of %(ruleset)s: %(colors)s",
                               color="raw", ruleset="ruleset", colors="color_list"),
    "minions_count": entry("minions: %(player)s's count is a whole number of 0 or more, not %(count)s",
                           player="name", count="raw"),
    "minions_twice": entry("minions: %(player)s is named twice", player="name"),
    "minions_missing": entry("minions: give the count of every other player; missing: %(players)s",
                             players="list"),
    "not_a_card": entry("'%(card)s' is not a card of %(ruleset)s; cards: %(cards)s", card="raw",
                        ruleset="ruleset", cards="card_list"),
    "names_a_color": entry("%(card)s names a colour: say which, one of %(colors)s", card="card",
                           colors="color_list"),
    "names_a_target": entry("%(card)s names another player: say which player it attacks", card="card"),
    "no_targets_in": entry("no card of %(ruleset)s names a player to attack", ruleset="ruleset"),
    "action_not_json": entry("an action is a JSON object"),
    "action_unknown": entry("unknown action type %(move)s; the moves: %(moves)s", move="raw", moves="move_list"),
    "action_unknown_key": entry("%(move)s: unknown key %(key)s", move="move", key="raw"),
    "action_key_missing": entry("%(move)s: say %(key)s", move="move", key="param"),
    "action_key_type": entry("%(move)s: %(key)s cannot be %(given)s", move="move", key="param", given="raw"),
    "takes_no_target": entry("%(card)s takes no target; only %(cards)s", card="card", cards="card_list"),
    # controller/rules/rulesets.py: the table as a game is started
    "players_not_list": entry("players must be a list of names in seat order"),
    "players_count": entry("%(minimum)d to %(maximum)d players, not %(count)d", minimum="int",
                           maximum="int", count="int"),
    "player_name_bad": entry("a name is 1 to %(maximum)d characters, with no control characters, no '='"
                             " and no spaces around it: %(name)s", maximum="int", name="raw"),
    "players_same_name": entry("two players are named %(name)s (names ignore case)", name="raw"),
    "unknown_ruleset": entry("unknown ruleset %(ruleset)s; rulesets: %(rulesets)s", ruleset="raw",
                             rulesets="ruleset_list"),
    "unknown_option": entry("unknown option %(option)s for %(ruleset)s; options: %(options)s",
                            option="raw", ruleset="ruleset", options="list"),
    "unknown_option_none": entry("unknown option %(option)s for %(ruleset)s; options: none",
                                 option="raw", ruleset="ruleset"),
    "option_not_allowed": entry("option %(option)s cannot be %(value)s; choices: %(choices)s",
                                option="raw", value="raw", choices="list"),
    # several messages as one: "a; b", or one per line
    "joined": entry("%(messages)s", messages="messages"),
    "lines": entry("%(lines)s", lines="lines"),
    # controller/rules/classic.py and controller/rules/blast.py: the UNO flows
    "round_deals_each": entry("round %(round)d of %(ruleset)s: %(dealer)s deals %(hand)d to each seat",
                              round="int", ruleset="ruleset", dealer="name", hand="int"),
    "first_ignored": entry("%(card)s turned up: ignored; turn up another card and say which it is",
                           card="card"),
    "first_ignored_dealer": entry("%(card)s turned up: ignored; deal another card from the launcher, then say which"
                                " it is",
                                  card="card"),
    "pile_started": entry("the pile already shows %(card)s (%(color)s): turning up is only for the first"
                        " card, before anyone plays",
                          card="card", color="color"),
    "pile_started_no_color": entry("the pile already shows %(card)s: turning up is only for the first card, before"
                                   " anyone plays", card="card"),
    "pile_starts": entry("the pile starts with %(card)s (%(color)s)", card="card", color="color"),
    "not_a_move_of": entry("%(ruleset)s has no such move (%(move)s); its moves: %(moves)s",
                           move="move", ruleset="ruleset", moves="move_list"),
    "not_a_move_of_or_press": entry("%(ruleset)s has no such move (%(move)s); its moves: %(moves)s, and a press of"
                                    " the launch button",
                                    move="move", ruleset="ruleset", moves="move_list"),
    "needs_its_color": entry("%(card)s has a colour: say which, one of %(colors)s", card="card",
                             colors="color_list"),
    "minions_more_than_held": entry("%(player)s cannot discard %(count)d: %(player)s holds %(cards)s",
                                    player="name", count="int", cards="cards"),
    "skipped_plays_again": entry("%(player)s is skipped; %(again)s plays again", player="name",
                                 again="name"),
    "pile_mismatch_uno": entry(
        "a %(color)s %(card)s does not go on the %(pile_color)s %(pile_card)s: play a %(pile_color)s"
        " card, a %(pile_card)s or a wild",
        color="color", card="card", pile_color="color", pile_card="card"),
    "no_uno_cards": entry("%(player)s did not call Uno: %(player)s owes %(cards)s", player="name",
                          cards="cards"),
    "no_uno_inserts": entry("%(player)s did not call Uno: %(player)s owes %(inserts)s", player="name",
                            inserts="inserts"),
    "is_dealt_first": entry("%(player)s is dealt %(cards)s first", player="name", cards="cards"),
    "settles_first": entry("%(player)s first settles the %(card)s: %(awaiting)s", player="name",
                           card="card", awaiting="awaiting"),
    "dealt_two_loses_turn": entry("%(player)s is dealt 2 and loses the turn", player="name"),
    "accept_or_challenge": entry("%(player)s: accept (dealt 4, turn lost) or challenge", player="name"),
    "minions_discard": entry("every other player discards Draw Two, Reverse and Skip cards; enter how"
                             " many each discarded"),
    "still_dealt": entry("%(player)s is still dealt %(cards)d; they count in the score", player="name",
                         cards="int"),
    "has_drawn": entry("%(player)s has drawn: play that card or pass", player="name"),
    "draw_is_one": entry("a draw is exactly 1 card, not %(cards)d: %(player)s is owed nothing",
                         cards="int", player="name"),
    "draws_one": entry("%(player)s draws 1 card: play it if it matches, or pass", player="name"),
    "owed_never_more": entry("%(player)s is owed %(owed)s, not %(cards)d: never more", player="name",
                             owed="cards", cards="int"),
    "dealt_done": entry("%(player)s is dealt %(cards)s, done", player="name", cards="cards"),
    "dealt_to_come": entry("%(player)s is dealt %(cards)s, %(left)d to come", player="name",
                           cards="cards", left="int"),
    "pass_after_draw": entry("pass only after drawing a card; a player who will not play draws first"),
    "keeps_card": entry("%(player)s keeps the card; turn over", player="name"),
    "no_challenge_now": entry("no Wild Draw Four to challenge now"),
    "no_accept_now": entry("no Wild Draw Four to accept now"),
    "challenges": entry("%(player)s challenges: %(challenged)s shows the hand; give the result, legal"
                        " or illegal", player="name", challenged="name"),
    "accepts": entry("%(player)s accepts: dealt 4, turn lost", player="name"),
    "no_challenge_waiting": entry("no challenge waits for its result"),
    "challenge_legal": entry("the Wild Draw Four was legal: %(player)s is dealt 6 and loses the turn",
                             player="name"),
    "challenge_illegal": entry("the Wild Draw Four was illegal: %(player)s is dealt 4; %(challenger)s"
                               " plays", player="name", challenger="name"),
    "no_minions_waiting": entry("no Wild Mega Minions Power waits for its counts"),
    "discards_nothing": entry("%(player)s played the card and discards nothing", player="name"),
    "is_dealt_n": entry("%(player)s is dealt %(cards)d", player="name", cards="int"),
    "owes_inserts": entry("%(player)s owes %(inserts)s", player="name", inserts="inserts"),
    "owes_inserts_then": entry("%(player)s owes %(inserts)s; then %(again)s plays again", player="name",
                               inserts="inserts", again="name"),
    "owes_inserts_first": entry("%(player)s owes %(inserts)s first; nothing answers it", player="name",
                                inserts="inserts"),
    "blast_turn_over": entry("the blast: %(player)s takes %(cards)s; turn over", player="name",
                             cards="cards"),
    "blast_done": entry("the blast: %(player)s takes %(cards)s, done", player="name", cards="cards"),
    "blast_still_owes": entry("the blast: %(player)s takes %(cards)s, still owes %(inserts)s",
                              player="name", cards="cards", inserts="inserts"),
    "insert_cards_bad": entry("a blast gives 1 card or more, not %(cards)d", cards="int"),
    "insert_safe_gives_none": entry("a safe insertion gives no card, not %(cards)d: a blast gives them", cards="int"),
    "safe_turn_over": entry("%(player)s is safe; turn over", player="name"),
    "safe_done": entry("%(player)s is safe, done", player="name"),
    "safe_still_owes": entry("%(player)s is safe, still owes %(inserts)s", player="name",
                             inserts="inserts"),
    # controller/rules/hands.py: what the controller knows of every hand (issue #39)
    "hand_count_dealer": entry("the cards the launcher dealt them, less the cards they played"),
    "hand_count_by_hand": entry("the %(hand)d dealt, plus the cards that came out for them, less the cards"
                                " they played", hand="int"),
    "holds_exactly": entry("%(player)s holds %(cards)s by the count (%(count)s)", player="name",
                           cards="cards", count="text"),
    "holds_at_least": entry("%(player)s holds at least %(cards)s by the count (%(count)s)", player="name",
                            cards="cards", count="text"),
    "no_card_to_play": entry("%(holds)s: nothing to play. If cards that came out for %(player)s were not"
                             " recorded, record them first; a mistake is taken back with undo",
                             holds="text", player="name"),
    "last_needs_one": entry("%(holds)s: a last card is played from a hand of one. Play this one as any other"
                            " card; if a card %(player)s played was not recorded, record it first, or take"
                            " the mistake back with undo", holds="text", player="name"),
    "catch_needs_one": entry("%(holds)s: only a player left with one card can be caught. If a card"
                             " %(player)s played was not recorded, record it first; a mistake is taken back"
                             " with undo", holds="text", player="name"),
    "caught_already": entry("%(player)s was caught already and owes the penalty", player="name"),
    "caught_already_paid": entry("%(player)s was caught already for that card and has taken the penalty:"
                                 " one catch per card", player="name"),
    "catch_nothing_played": entry("%(player)s has played no card this round: a catch is of the player who"
                                  " played last, before the next player takes their turn", player="name"),
    "catch_window_closed": entry("too late to catch %(player)s: the next player has taken their turn since"
                                 " (played, pressed, drawn or inserted)", player="name"),
    "winner_not_emptied": entry("%(holds)s: %(player)s cannot have emptied their hand. Record the cards"
                                " %(player)s played that were not recorded (the last one as the last card), or"
                                " name the player who played their last card", holds="text", player="name"),
    "hand_count_differs": entry("%(player)s's hand: %(entered)d cards entered, but %(holds)s: enter the"
                                " cards %(player)s holds, or undo and record what was missed",
                                player="name", entered="int", holds="text"),
    "hand_zero_no_zero_card": entry("%(player)s's hand: 0 points, but only the winner emptied their hand and"
                                    " %(ruleset)s has no 0 card: enter the points of the cards %(player)s"
                                    " holds", player="name", ruleset="ruleset"),
    "hand_points_too_many": entry("%(player)s's hand: %(points)d points is more than the cards can make:"
                                  " %(holds)s, 50 points at most each", player="name", points="int",
                                  holds="text"),
    "more_copies_than_the_box": entry("%(count)d copies of %(card)s entered, but the %(ruleset)s box holds"
                                      " %(boxed)d: check the hands", count="int", card="card",
                                      ruleset="ruleset", boxed="int"),
    "first_card_first": entry("the first card is not turned up yet: nobody plays or draws before it. Have"
                              " the launcher deal one card (the page's Turn up button), turn it face up and"
                              " say which card it is; then %(player)s starts", player="name"),
    "first_discard_all_only": entry("Discard All turned up: %(player)s discards the %(color)s cards (say"
                                    " the last one laid, with its colour) or presses; no other card",
                                    player="name", color="color"),
    "first_discard_all_only_any": entry("Discard All turned up: %(player)s discards the cards of its colour"
                                        " (say the last one laid, with its colour) or presses; no wild, no"
                                        " other card", player="name"),
    "first_discard_done": entry("%(player)s discards the %(color)s cards; turn over", player="name",
                                color="color"),
    "plays_again_after_presses": entry("%(player)s plays again once %(victim)s has pressed (two players)",
                                       player="name", victim="name"),
    "last_slot_fires": entry("the blaster holds %(cards)d cards: the last empty slot always fires. Record"
                             " the blast: %(player)s takes %(blasted)d cards", cards="int", player="name",
                             blasted="int"),
    "then_owes": entry("then %(player)s owes %(presses)s", player="name", presses="presses"),
    "then_owes_inserts": entry("then %(player)s owes %(inserts)s", player="name", inserts="inserts"),
}
