// Unicode emoji name table (Zulip's names and codes): name <-> code lookups for messages, reactions and status.
//
// Each entry is `code:canonical_name,alias,...`. Codes are lowercase hex code points joined
// by '-', each at least 4 digits, as in Zulip's emoji_code (e.g. "1f44d", "0023-20e3").
const DATA = `
1f600:grinning,happy 1f603:smiley 1f604:big_smile 1f601:grinning_face_with_smiling_eyes
1f606:laughing,lol 1f605:sweat_smile 1f602:joy,tears,laughter_tears 1f923:rolling_on_the_floor_laughing,rofl
263a:relaxed 1f60a:blush 1f607:innocent,halo 1f642:smile,slight_smile 1f643:upside_down,oops
1f609:wink 1f60c:relieved 1f60d:heart_eyes,in_love 1f618:heart_kiss,blow_a_kiss 1f617:kiss
1f60b:yum 1f61c:stuck_out_tongue_wink,joking,crazy 1f61d:stuck_out_tongue 1f61b:mischievous
1f911:money_face,kaching 1f917:hug,arms_open 1f913:nerd,geek 1f60e:sunglasses 1f921:clown
1f920:cowboy 1f60f:smirk,smug 1f612:unamused 1f61e:disappointed 1f614:pensive,tired 1f61f:worried
1f615:oh_no,half_frown,concerned,confused 1f641:frown,slight_frown 2639:sad,big_frown
1f623:persevere,helpless 1f616:confounded,agony 1f62b:anguish 1f629:weary,distraught 1f624:triumph
1f620:angry 1f621:rage,mad,grumpy,very_angry 1f636:speechless,no_mouth,blank,poker_face
1f610:neutral 1f611:expressionless 1f62f:hushed 1f626:frowning 1f627:anguished,pained
1f62e:open_mouth,surprise 1f632:astonished 1f635:dizzy 1f633:flushed,embarrassed,blushing
1f631:scream 1f628:fear,scared,shock 1f630:cold_sweat 1f622:cry 1f625:exhausted,disappointed_relieved,stressed
1f924:drooling 1f62d:sob 1f613:sweat 1f62a:sleepy 1f634:sleeping 1f644:rolling_eyes 1f914:thinking
1f925:lying 1f62c:grimacing,nervous,anxious 1f910:silence,quiet,hush,zip_it,lips_are_sealed
1f922:nauseated,queasy 1f927:sneezing 1f637:cant_talk,mask 1f912:sick,flu,face_with_thermometer
1f915:hurt,head_bandage,injured 1f608:smiling_devil,smiling_imp 1f47f:devil,imp,angry_devil
1f4a9:poop,pile_of_poo 1f47b:ghost,boo,spooky,haunted 1f480:skull 2620:skull_and_crossbones,pirate
1f47d:alien,ufo 1f47e:space_invader 1f916:robot 1f383:jack-o-lantern,pumpkin 1f63a:smiley_cat
1f638:smile_cat 1f639:joy_cat 1f63b:heart_eyes_cat 1f63f:crying_cat 1f63e:angry_cat,pouting_cat
1f648:see_no_evil 1f649:hear_no_evil 1f64a:speak_no_evil
1f450:open_hands 1f64c:raised_hands,praise 1f44f:clap,applause 1f64f:pray,welcome,thank_you,namaste
1f91d:handshake,done_deal 1f44d:+1,thumbs_up 1f44e:-1,thumbs_down 1f44a:fist_bump,punch 270a:fist,power
1f91e:fingers_crossed 270c:peace_sign,victory 1f918:rock_on,sign_of_the_horns 1f44c:ok,got_it
1f448:point_left 1f449:point_right 1f446:point_up,this 1f447:point_down
261d:wait_one_second,point_of_information,asking_a_question 270b:hand,raised_hand 1f91a:stop
1f590:high_five,palm 1f596:spock,live_long_and_prosper 1f44b:wave,hello,hi 1f919:call_me
1f4aa:muscle 270d:writing 1f933:selfie 1f485:nail_polish,nail_care 1f48d:ring 1f484:lipstick
1f444:lips,mouth 1f445:tongue 1f442:ear 1f443:nose 1f441:eye 1f440:eyes,looking
1f441-200d-1f5e8:eye_in_speech_bubble 1f5e3:speaking_head 1f464:silhouette,shadow
1f476:baby 1f466:boy 1f467:girl 1f468:man 1f469:woman 1f474:older_man,elderly_man
1f475:older_woman,elderly_woman 1f46e:police,cop 1f477:construction_worker 1f575:detective,spy
1f385:santa 1f478:princess 1f934:prince 1f47c:angel 1f647:bow 1f926:face_palm 1f937:shrug
1f937-200d-2640:woman_shrugging 1f483:dancer 1f57a:dancing,disco 1f6b6:walking,pedestrian
1f3c3:running,runner 1f46a:family 1f455:shirt,tshirt 1f456:jeans,denim 1f457:dress 1f451:crown,queen,king
1f453:glasses,spectacles 1f392:backpack,satchel 1f4bc:briefcase 1f393:graduate,mortar_board
1f436:puppy 1f431:kitten 1f408:cat,meow 1f415:dog,woof 1f407:rabbit 1f430:bunny 1f401:mouse
1f98a:fox 1f43b:bear 1f43c:panda 1f428:koala 1f981:lion 1f405:tiger 1f404:cow 1f416:pig,oink
1f438:frog 1f412:monkey 1f414:chicken,cluck 1f427:penguin 1f426:bird 1f986:duck 1f985:eagle
1f989:owl 1f987:bat 1f43a:wolf 1f984:unicorn 1f41d:bee,buzz,honeybee 1f41b:bug,caterpillar
1f98b:butterfly 1f40c:snail 1f41e:beetle,ladybug 1f41c:ant 1f577:spider 1f422:turtle,tortoise
1f40d:snake,hiss 1f980:crab 1f991:squid 1f419:octopus 1f990:shrimp 1f41f:fish 1f420:tropical_fish
1f42c:dolphin,flipper 1f988:shark 1f433:whale 1f418:elephant 1f40e:horse 1f411:sheep,baa
1f409:dragon 1f43e:paw_prints,paws
1f335:cactus 1f384:holiday_tree 1f332:evergreen_tree 1f333:tree,deciduous_tree 1f334:palm_tree
1f331:seedling,sprout 1f33f:herb,plant 1f340:lucky,four_leaf_clover 1f341:maple_leaf 1f344:mushroom
1f490:bouquet 1f337:tulip,flower 1f339:rose 1f33b:sunflower 1f338:cherry_blossom
1f30e:earth_americas 1f30d:earth_africa 1f30f:earth_asia 1f315:full_moon 1f319:moon
2b50:star 1f31f:glowing_star 2728:sparkles,glamour 26a1:high_voltage,zap 1f525:fire,lit,hot,flame
1f4a5:boom,explosion,crash,collision 2604:comet,meteor 2600:sunny 2601:cloud,overcast
1f308:rainbow,pride,lgbtq 2744:snowflake 2603:snowman 2602:umbrella 1f30a:ocean
1f4a7:drop,water_drop 1f4a8:dash
1f34e:apple 1f34f:green_apple 1f350:pear 1f34a:orange,tangerine,mandarin 1f34b:lemon 1f34c:banana
1f349:watermelon 1f347:grapes 1f353:strawberry 1f352:cherries 1f351:peach 1f34d:pineapple
1f95d:kiwi 1f951:avocado 1f345:tomato 1f346:eggplant 1f955:carrot 1f33d:corn,maize
1f336:hot_pepper,chili_pepper 1f954:potato 1f35e:bread 1f9c0:cheese 1f95a:egg 1f953:bacon
1f95e:pancakes,breakfast 1f355:pizza 1f354:hamburger 1f35f:fries 1f32d:hotdog 1f32e:taco
1f32f:burrito 1f363:sushi 1f35c:ramen,noodles 1f35d:spaghetti 1f35a:rice 1f372:food,soup,stew
1f368:ice_cream,gelato 1f369:donut,doughnut 1f36a:cookie 1f36b:chocolate 1f36c:candy
1f37f:popcorn 1f370:cake 1f382:birthday 2615:coffee 1f375:tea 1f37a:beer 1f37b:beers
1f942:clink,toast 1f377:wine 1f378:cocktail 1f37e:champagne 1f95b:milk,glass_of_milk
26bd:football,soccer 1f3c0:basketball 26be:baseball 1f3be:tennis 1f3ae:video_game
1f3b2:dice,die 1f3af:direct_hit,darts,bulls_eye 1f3b8:guitar 1f3a7:headphones
1f3a4:microphone,mike,mic 1f3a8:art,palette,painting 1f3b5:music 1f3b6:musical_notes
1f3c5:medal 1f947:first_place,gold,number_one 1f948:second_place,silver 1f949:third_place,bronze
1f3c6:trophy,winner
1f697:car 1f695:taxi,rideshare 1f68c:bus,school_bus 1f6b2:bike,bicycle 1f682:train,steam_locomotive
2708:airplane 1f680:rocket 1f6a2:ship 2693:anchor 1f6a7:work_in_progress,construction_zone
1f3e0:house 1f3e2:office 1f3e5:hospital 1f3eb:school 1f3f0:castle 26fa:tent,camping
26f0:mountain 1f30b:volcano 1f5fa:map,world_map,road_trip
231a:watch 1f4f1:mobile_phone,smartphone 1f4bb:computer,laptop 2328:keyboard 1f5a8:printer
1f4be:floppy_disk 1f4f7:camera 1f4fa:tv,television 1f4fb:radio 260e:phone,telephone
23f0:alarm_clock 23f3:time_ticking,hourglass 231b:times_up,hourglass_done 1f557:time,clock
1f50b:battery,full_battery 1f50c:electric_plug 1f4a1:light_bulb,bulb,idea 1f526:flashlight
1f56f:candle 1f5d1:wastebasket,trash_can 1f4b0:money 1f4b5:dollar_bills 1f4b3:credit_card,debit_card
1f48e:gem,crystal 1f527:fixing,wrench 1f528:hammer,maintenance 2699:gear,settings,mechanical
1f6e0:working_on_it,hammer_and_wrench,tools 1f4a3:bomb 1f52a:knife 1f6e1:shield
1f52e:crystal_ball,oracle,future 1f52d:telescope 1f52c:science,microscope 1f48a:medicine,pill
1f511:key 1f6aa:door 1f6cf:bed,bedroom
1f381:gift,present 1f388:balloon,celebration 1f38a:confetti,party_ball 1f389:tada,congratulations
1f380:ribbon,decoration 2709:email,envelope,mail 1f4e5:inbox 1f4e4:outbox 1f4e6:package
1f3f7:label,tag,price_tag 1f4eb:mailbox 1f4dc:scroll 1f4c4:document,paper,file,page
1f4ca:bar_chart 1f4c8:chart,upwards_trend,growing,increasing 1f4c9:downwards_trend,shrinking
1f4c5:calendar 1f4cb:clipboard 1f4c2:folder 1f5de:newspaper 1f4d3:notebook 1f4da:books
1f4d6:book,open_book 1f516:bookmark 1f517:link 1f4ce:paperclip,attachment 1f4cf:ruler
1f4cc:push_pin,thumb_tack 1f4cd:pin,sewing_pin 2702:scissors 1f58a:pen,ballpoint_pen
270f:pencil 1f4dd:memo,note 1f50d:search,find,magnifying_glass 1f512:locked 1f513:unlocked
2764:heart,love,love_you 1f49b:yellow_heart 1f49a:green_heart 1f499:blue_heart
1f49c:purple_heart 1f5a4:black_heart 1f494:broken_heart,heartache 1f495:two_hearts
1f496:sparkling_heart 1f498:cupid,smitten,heart_arrow 262e:peace 262f:yin_yang 269b:atom,physics
2622:radioactive,nuclear 274c:cross_mark,incorrect,wrong 2b55:circle 1f6d1:stop_sign,octagonal_sign
26d4:no_entry,wrong_way 1f6ab:prohibited,not_allowed 1f4af:100,hundred 1f4a2:anger,bam,pow
2757:exclamation 2753:question 203c:bangbang,double_exclamation 2049:interrobang
26a0:warning,caution,danger 267b:recycle 2705:check,all_good,approved 274e:x
1f310:www,globe 1f4a4:zzz 2139:info 1f192:cool 1f195:new 1f193:free 1f198:sos
0030-20e3:zero 0031-20e3:one 0032-20e3:two 0033-20e3:three 0034-20e3:four 0035-20e3:five
0036-20e3:six 0037-20e3:seven 0038-20e3:eight 0039-20e3:nine 1f51f:ten
0023-20e3:hash 002a-20e3:asterisk 25b6:play 23f8:pause 23f9:stop_button 23fa:record
23e9:fast_forward 23ea:rewind,fast_reverse 27a1:right,east 2b05:left,west 2b06:up,north
2b07:down,south 21a9:reply,left_hook 21aa:forward,right_hook 1f500:shuffle 1f501:repeat
2795:plus,add 2796:minus,subtract 2797:division,divide 2716:multiplication,multiply 2122:tm,trademark
2714:check_mark 2611:checkbox 1f534:red_circle 1f535:blue_circle 1f508:speaker 1f507:mute,no_sound
1f514:notifications,bell 1f515:mute_notifications 1f4e3:megaphone,shout 1f5e8:speech_bubble
1f4ac:umm,speech_balloon 1f4ad:thought,dream 2660:spades 2663:clubs 2665:hearts 2666:diamonds
1f0cf:joker 1f3f3:white_flag,surrender 1f3f4:black_flag 1f3c1:checkered_flag,race,go,start
1f6a9:triangular_flag 1f38c:crossed_flags,solidarity
`;

const codeByName = new Map<string, string>();
const nameByCode = new Map<string, string>();

for (const entry of DATA.split(/\s+/)) {
  if (entry === '') continue;
  const [code, names] = entry.split(':') as [string, string];
  const list = names.split(',');
  nameByCode.set(code, list[0]!);
  for (const name of list) codeByName.set(name, code);
}

/** Where the server publishes this table as {code_to_names} (register's server_emoji_data_url). */
export const EMOJI_DATA_PATH = '/static/generated/emoji/emoji_api.json';

/** The emoji code for a name or alias (e.g. "thumbs_up" => "1f44d"), or undefined. */
export function emojiByName(name: string): string | undefined {
  return codeByName.get(name);
}

/** Whether `code` is one of the table's unicode emoji codes. */
export function emojiCodeIsValid(code: string): boolean {
  return nameByCode.has(code);
}

/** The canonical name for a code (e.g. "1f44d" => "+1"), or undefined. */
export function emojiNameForCode(code: string): string | undefined {
  return nameByCode.get(code);
}

/** Every known name, aliases included. */
export function emojiNames(): string[] {
  return [...codeByName.keys()];
}

/** Every known code with its canonical name. */
export function emojiCodes(): [code: string, name: string][] {
  return [...nameByCode.entries()];
}

/** The characters an emoji code stands for ("1f44d" => "👍"). */
export function emojiCodeToText(code: string): string {
  return code
    .split('-')
    .map((hex) => String.fromCodePoint(parseInt(hex, 16)))
    .join('');
}

/** A RenderContext.emoji backed by this table alone (no realm emoji). */
export function defaultEmojiLookup(name: string): { code: string; type: 'unicode_emoji' } | undefined {
  const code = codeByName.get(name);
  return code === undefined ? undefined : { code, type: 'unicode_emoji' };
}
